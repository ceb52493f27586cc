/* The placement criteria's slot values and bounds (CoP, PAST), shared by the compiled
 * window-search kernels (_search.c) and the compiled search (_window.c).
 *
 * gridsim/selection/placement.py (slot_values, slot_value_bound) and criteria.py
 * (SlotCriterion.sigma_bounds) are the reference: the same float expressions, term for term
 * (no fused multiply-add: setup.py builds with -ffp-contract=off).
 */
#ifndef GRIDSIM_CORE_PLACEMENT_H
#define GRIDSIM_CORE_PLACEMENT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>

/* The criteria the compiled search runs: the placement rules, and BFfinish and BFstart (their
 * windows are worth their finish, resp. start, alone; their slots are taken in slot order). */
enum { COP = 0, PAST = 1, MIN_FINISH = 2, EARLIEST_START = 3 };

typedef struct {
    int kind;
    double alpha1, alpha2, delta1, delta2, epsilon1, epsilon2, epsilon3;
    double rule2_sign, adjacent, bonus; /* bonus NaN: no window-value bound */
} Rules;

/* Candidate slots: the free interval's own start, its end, the node's performance, and the
 * slot indices in price order (ties: list order). */
typedef struct {
    const double *slot_start, *end, *performance;
    const int64_t *by_price;
    Py_ssize_t slots;
} Slots;

typedef struct { double value; int64_t slot; } Member;

/* CoP's per-side amendment: placement.py CoP._side, term for term. */
static inline double cop_side(const Rules *rules, double distance, double runtime) {
    double tight = distance < rules->epsilon1 * runtime;
    double awkward =
        (distance > rules->epsilon2 * runtime) & (distance < rules->epsilon3 * runtime);
    double roomy = distance > runtime;
    return rules->delta1 * tight - rules->delta1 * awkward + rules->delta2 * roomy;
}

/* A slot's z for a window [start, start + runtime): placement.py slot_values. */
static inline double slot_value(const Rules *rules, const Slots *s, Py_ssize_t slot,
                                double start, double runtime) {
    double left = start - s->slot_start[slot];
    double right = s->end[slot] - (start + runtime);
    double z = -(start + runtime) - rules->alpha1 * s->performance[slot];
    if (rules->kind == COP)
        return z + cop_side(rules, left, runtime) + cop_side(rules, right, runtime);
    z = z + rules->delta1 * (double)(right <= rules->adjacent) +
        rules->delta1 * (double)(left <= rules->adjacent);
    return z + rules->rule2_sign * rules->alpha2 * (isinf(right) ? 0.0 : right);
}

/* CoP's exact best per-side amendment over distances in [low, high]: CoP._side_bound. */
static inline double cop_side_bound(const Rules *rules, double low, double high,
                                    double runtime) {
    double e1 = rules->epsilon1 * runtime, e2 = rules->epsilon2 * runtime;
    double e3 = rules->epsilon3 * runtime;
    double tight = low < e1 ? rules->delta1 : -INFINITY;
    double roomy = high > runtime ? rules->delta2 : -INFINITY;
    double best = tight >= roomy ? tight : roomy;
    int neutral = (low <= e2 && high >= e1) || (low <= runtime && high >= e3);
    int awkward = low < e3 && high > e2;
    double rest = neutral ? 0.0 : (awkward ? -rules->delta1 : -INFINITY);
    return best >= rest ? best : rest;
}

/* An upper bound of a slot's z over window starts in [lo, hi]: slot_value_bound. */
static inline double slot_value_bound(const Rules *rules, const Slots *s, Py_ssize_t slot,
                                      double runtime, double lo, double hi) {
    double end = s->end[slot], slot_start = s->slot_start[slot];
    int open_tail = isinf(end);
    double left_min = lo - slot_start, left_max = hi - slot_start;
    double right_min = open_tail ? INFINITY : end - hi - runtime;
    double right_max = open_tail ? INFINITY : end - lo - runtime;
    double z = -(lo + runtime) - rules->alpha1 * s->performance[slot];
    if (rules->kind == COP)
        return z + cop_side_bound(rules, left_min, left_max, runtime) +
               cop_side_bound(rules, right_min, right_max, runtime);
    z = z + rules->delta1 * (double)(right_min <= rules->adjacent) +
        rules->delta1 * (double)(left_min <= rules->adjacent);
    if (rules->rule2_sign > 0) return z + rules->alpha2 * (isinf(right_max) ? 0.0 : right_max);
    return z - rules->alpha2 * (isinf(right_min) ? 0.0 : (right_min >= 0.0 ? right_min : 0.0));
}

/* Keep `value` among the `limit` largest of `best` (holding `*held`), largest first; among
 * equal values the one kept first stays ahead, as a stable sort would order them. */
static inline void keep_largest(Member *best, Py_ssize_t *held, Py_ssize_t limit, double value,
                                int64_t slot) {
    if (*held == limit && !(value > best[limit - 1].value)) return;
    Py_ssize_t k = *held < limit ? (*held)++ : limit - 1;
    while (k > 0 && value > best[k - 1].value) {
        best[k] = best[k - 1];
        k--;
    }
    best[k].value = value;
    best[k].slot = slot;
}

/* Row (sigma, step) of the exact search, a window [start, start + runtime): its `count` best
 * members in `best` (value largest first; among equal values the cheaper slot, as a stable
 * sort of the columns in price order leaves them) and the window's value: the members'
 * values added from the smallest, then sigma's (ties.window_value). `*held`: how many
 * members it has, up to `count` (fewer: no window). A member is listed no later than the
 * step, is not sigma, is at least as fast and free until the finish (and `least_finish`):
 * Step.member_block. NaN if a value is NaN (the Python path decides then). */
static inline double row_value(const Rules *rules, const Slots *s, int64_t sigma, int64_t step,
                               double start, double runtime, double least_finish,
                               Py_ssize_t count, Member *best, Py_ssize_t *held) {
    double finish = start + runtime, slowest = s->performance[sigma];
    *held = 0;
    for (Py_ssize_t position = 0; position < s->slots && count > 0; position++) {
        int64_t c = s->by_price[position];
        if (c > step || c == sigma || s->performance[c] < slowest) continue;
        if (!(s->end[c] >= least_finish && s->end[c] >= finish)) continue;
        double value = slot_value(rules, s, c, start, runtime);
        if (isnan(value)) return NAN;
        keep_largest(best, held, count, value, c);
    }
    if (*held < count) return -INFINITY;
    double own = slot_value(rules, s, sigma, start, runtime);
    if (count == 0) return own + 0.0;
    double total = best[count - 1].value;
    for (Py_ssize_t k = count - 2; k >= 0; k--) total += best[k].value;
    return own + total;
}

/* Sigma's bound without a budget (SlotCriterion.sigma_bounds): its own slot bound plus its
 * n - 1 best joiners' (-inf with fewer joiners). `start` is the candidates' effective start;
 * `best` has room for n - 1 members. The sum's order is not NumPy's: it only orders and
 * prunes, with the slack of gridsim.selection.ties.with_slack. */
static inline double sigma_bound(const Rules *rules, const Slots *s, const double *start,
                                 int64_t sigma, double runtime, Py_ssize_t n, Member *best) {
    double latest = s->end[sigma] - runtime;
    double own = slot_value_bound(rules, s, sigma, runtime, start[sigma], latest);
    Py_ssize_t others = n - 1;
    if (others < 1) return own + 0.0;
    double earliest_end = start[sigma] + runtime, slowest = s->performance[sigma];
    Py_ssize_t held = 0, joiners = 0;
    for (Py_ssize_t c = 0; c < s->slots; c++) {
        /* Joinable._joined: at least as fast, overlapping sigma's starts, long enough. */
        if (c == sigma || !(s->performance[c] >= slowest) || !(start[c] <= latest)) continue;
        if (!(s->end[c] >= earliest_end) || !(s->end[c] - start[c] >= runtime * (1 - 1e-12)))
            continue;
        joiners++;
        double lo = start[sigma] >= start[c] ? start[sigma] : start[c];
        double hi = s->end[c] - runtime;
        hi = latest <= hi ? latest : hi;
        keep_largest(best, &held, others, slot_value_bound(rules, s, c, runtime, lo,
                                                           lo >= hi ? lo : hi), c);
    }
    if (joiners < others) return -INFINITY;
    double total = best[0].value;
    for (Py_ssize_t k = 1; k < others; k++) total += best[k].value;
    return own + total;
}

/* ``object``'s buffer of 8-byte values, at least ``items`` of them if ``items >= 0``. */
static inline int get_vector(PyObject *object, Py_buffer *view, Py_ssize_t items,
                             int writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (view->itemsize != 8 || (items >= 0 && view->len < items * 8)) {
        PyErr_SetString(PyExc_ValueError, "expected arrays of 8-byte values of matching sizes");
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

static inline int parse_rules(PyObject *rules_o, Rules *rules) {
    return PyArg_ParseTuple(rules_o, "idddddddddd", &rules->kind, &rules->alpha1,
                            &rules->alpha2, &rules->delta1, &rules->delta2, &rules->epsilon1,
                            &rules->epsilon2, &rules->epsilon3, &rules->rule2_sign,
                            &rules->adjacent, &rules->bonus) ? 0 : -1;
}

/* The compiled search (_window.c), the slot table's patches (_slot_table.c) and the
 * planners' test before a re-planning search (_earlier_windows.c). */
PyObject *placement_find(PyObject *self, PyObject *args);
extern const char placement_find_doc[];
PyObject *patch_table(PyObject *self, PyObject *args);
extern const char patch_table_doc[];
PyObject *may_move_earlier(PyObject *self, PyObject *args);
extern const char may_move_earlier_doc[];

#endif
