/* The whole window search for BFfinish, BFstart, CoP and PAST without a budget, compiled.
 *
 * gridsim/selection/window_search.py (find_window) is the reference and says why each rule is
 * as it is; this file follows it for a request without a budget: the candidate slots
 * (Candidates.from_table), the candidate slowest slots sigma and their steps (steps_of), each
 * step's window (CoP and PAST: its best members and window value, row_value, as the exact
 * steps of _search.c; BFfinish, BFstart: its first members in slot order, worth its finish,
 * resp. start, as placement.choose_in_slot_order), and the tie rule of
 * gridsim/selection/ties.py (_tie_rule.h). The tie rule is a function of the set of windows, not of the order they are
 * found in, so the search here visits the sigmas in its own order and prunes with its own
 * bounds (each an upper bound with a margin for rounding), and it chooses the window the
 * Python search chooses, bit for bit.
 *
 * The search: sigmas in the order of a cheap ceiling of their windows' values (the
 * window-value bound at sigma's own start, SlotCriterion.sigma_bound_ceilings; BFfinish,
 * BFstart: the window value at sigma's own start, exact), stopping at
 * the first below the tie floor of the best window found; a sigma's exact bound
 * (sigma_bound) skips it when below; a sigma whose windows a window found outranks while tied
 * with everything they can be worth is skipped and checked again at the end (Contenders.skip
 * and unsettled); a sigma's steps are visited in start order up to the first whose
 * window-value bound is below the tie floor.
 */
#include "_placement.h"
#include "_tie_rule.h"

#include <stdlib.h>

/* The highest rank a window of sigma can have: its own start and its own slot as the step. */
static Found highest_rank(const Slots *s, const double *start, int64_t sigma) {
    Found rank = {0.0, s->performance[sigma], start[sigma], sigma, sigma};
    return rank;
}

/* Everything one search reads and keeps. */
typedef struct {
    Rules rules;
    Slots s;
    const double *start, *runtime, *price;
    Py_ssize_t n, count;
    Member *members; /* room for max(n - 1, 1) */
    double *values;  /* as many */
    Contenders contenders;
} Search;

enum { FOUND = 0, DECLINE = 1, FAILED = -1 };

/* Keep `value` among the `limit` largest of `best` (holding `*held`), largest first. */
static void keep_value(double *best, Py_ssize_t *held, Py_ssize_t limit, double value) {
    if (*held == limit && !(value > best[limit - 1])) return;
    Py_ssize_t k = *held < limit ? (*held)++ : limit - 1;
    while (k > 0 && value > best[k - 1]) {
        best[k] = best[k - 1];
        k--;
    }
    best[k] = value;
}

/* Offer the windows of sigma's steps (steps_of) to the contenders. A step's value is sigma's
 * and its best members' (row_value); the steps of one start differ only by the slots listed
 * up to each, so their members' values are kept from one step to the next and only the
 * newly listed slots are valued: the same values, so the same sums. Which members are the
 * best among equal values does not change a value; the window chosen gets its members from
 * row_value at the end. */
static int evaluate(Search *x, int64_t sigma) {
    const Slots *s = &x->s;
    double task = x->runtime[sigma], slowest = s->performance[sigma];
    double latest = s->end[sigma] - task, at = NAN, finish = NAN;
    int prune = !isnan(x->rules.bonus);
    Py_ssize_t held = 0, listed = 0, count = x->count;
    for (Py_ssize_t step = sigma; step < s->slots && x->start[step] <= latest; step++) {
        double start = x->start[step];
        if (prune && isfinite(x->contenders.floor)) {
            /* The window-value bound falls as the start grows: later steps are below too. */
            double base = -(start + task) - x->rules.alpha1 * slowest;
            double floor = x->contenders.floor;
            if (!((double)x->n * (base + x->rules.bonus) >= floor - 1e-9 * (fabs(floor) + 1.0)))
                break;
        }
        if (s->performance[step] < slowest) continue;
        if (!(s->end[step] - start >= task * (1 - 1e-12)) || !(start + task <= s->end[sigma]))
            continue;
        if (!(start == at)) at = start, finish = start + task, held = 0, listed = 0;
        for (; listed <= step && count > 0; listed++) {
            /* Step.member_block: listed so far, not sigma, as fast, free until the finish. */
            if (listed == sigma || s->performance[listed] < slowest) continue;
            if (!(s->end[listed] >= finish)) continue;
            double value = slot_value(&x->rules, s, listed, start, task);
            if (isnan(value)) return DECLINE; /* the Python path decides */
            keep_value(x->values, &held, count, value);
        }
        if (held < count) continue;
        double value = slot_value(&x->rules, s, sigma, start, task), total = 0.0;
        if (count > 0) {
            total = x->values[count - 1];
            for (Py_ssize_t k = count - 2; k >= 0; k--) total += x->values[k];
        }
        value = value + total;
        if (!isfinite(value)) return DECLINE;
        Found window = {value, slowest, start, sigma, step};
        if (offer(&x->contenders, window) < 0) return FAILED;
    }
    return FOUND;
}

/* The window value of BFfinish (MinFinish.value) and BFstart (FirstFit.value, the earliest
 * start): it never grows with the start. */
static double in_slot_order_value(const Search *x, double start, double runtime) {
    return x->rules.kind == MIN_FINISH ? -(start + runtime) : -start;
}

/* BFfinish's and BFstart's steps (choose_in_slot_order without a budget): a step is a window
 * if it has `count` members, worth its finish (start) whichever they are; the first such step
 * of a sigma is its best (later ones start no earlier, so are worth no more and rank lower). */
static int evaluate_in_slot_order(Search *x, int64_t sigma) {
    const Slots *s = &x->s;
    double task = x->runtime[sigma], slowest = s->performance[sigma];
    double latest = s->end[sigma] - task, at = NAN, finish = NAN;
    Py_ssize_t held = 0, listed = 0;
    for (Py_ssize_t step = sigma; step < s->slots && x->start[step] <= latest; step++) {
        double start = x->start[step], value = in_slot_order_value(x, start, task);
        if (value < x->contenders.floor) break; /* and every later step */
        if (s->performance[step] < slowest) continue;
        if (!(s->end[step] - start >= task * (1 - 1e-12)) || !(start + task <= s->end[sigma]))
            continue;
        if (!(start == at)) at = start, finish = start + task, held = 0, listed = 0;
        for (; listed <= step && held < x->count; listed++)
            held += listed != sigma && s->performance[listed] >= slowest &&
                    s->end[listed] >= finish;
        if (held < x->count) continue;
        if (!isfinite(value)) return DECLINE;
        Found window = {value, slowest, start, sigma, step};
        return offer(&x->contenders, window) < 0 ? FAILED : FOUND;
    }
    return FOUND;
}

/* The first `count` members of a step in slot order (as evaluate_in_slot_order finds them). */
static void first_members(const Search *x, const Found *row, int64_t *members) {
    const Slots *s = &x->s;
    double slowest = s->performance[row->sigma], finish = row->start + x->runtime[row->sigma];
    Py_ssize_t held = 0;
    for (Py_ssize_t c = 0; c <= row->step && held < x->count; c++)
        if (c != row->sigma && s->performance[c] >= slowest && s->end[c] >= finish)
            members[held++] = c;
}

static int evaluate_sigma(Search *x, int64_t sigma) {
    return x->rules.kind >= MIN_FINISH ? evaluate_in_slot_order(x, sigma) : evaluate(x, sigma);
}

/* The visiting order: larger key first, then the faster, the earlier start, the lower index. */
typedef struct {
    double key, performance, start;
    int64_t sigma;
} Visit;

static int visit_order(const void *a_, const void *b_) {
    const Visit *a = a_, *b = b_;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    if (a->performance != b->performance) return a->performance > b->performance ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->sigma > b->sigma) - (a->sigma < b->sigma);
}

/* Run the search over the candidates; the best window's row in *chosen. */
static int search(Search *x, Visit *visits, Py_ssize_t sigmas, int64_t *skipped,
                  const Found **chosen) {
    const Slots *s = &x->s;
    /* Exact keys: BFfinish's and BFstart's window value at sigma's own start, or, without a
     * cheap ceiling, the placement criteria's sigma bounds. */
    int in_slot_order = x->rules.kind >= MIN_FINISH;
    int exact_keys = in_slot_order || isnan(x->rules.bonus);
    for (Py_ssize_t k = 0; k < sigmas; k++) {
        int64_t sigma = visits[k].sigma;
        double task = x->runtime[sigma];
        double key;
        if (in_slot_order) {
            key = in_slot_order_value(x, x->start[sigma], task);
            key = isfinite(key) ? key + BOUND_SLACK * (fabs(key) + 1.0) : key;
        } else if (exact_keys) {
            key = sigma_bound(&x->rules, s, x->start, sigma, task, x->n, x->members);
            if (isnan(key)) return DECLINE;
            key = isfinite(key) ? key + BOUND_SLACK * (fabs(key) + 1.0) : key;
        } else {
            double base = -(x->start[sigma] + task) - x->rules.alpha1 * s->performance[sigma];
            key = (double)x->n * (base + x->rules.bonus);
            key = isnan(key) ? INFINITY : key + 1e-9 * (fabs(key) + 1.0);
        }
        visits[k].key = key;
    }
    qsort(visits, (size_t)sigmas, sizeof(Visit), visit_order);
    Contenders *c = &x->contenders;
    Py_ssize_t skips = 0;
    double highest_skipped = -INFINITY;
    for (Py_ssize_t k = 0; k < sigmas; k++) {
        if (visits[k].key < c->floor || visits[k].key == -INFINITY) break;
        int64_t sigma = visits[k].sigma;
        double ceiling = visits[k].key;
        if (!exact_keys) {
            ceiling = sigma_bound(&x->rules, s, x->start, sigma, x->runtime[sigma], x->n,
                                  x->members);
            if (isnan(ceiling)) return DECLINE;
            if (ceiling == -INFINITY) continue; /* fewer joiners than the window needs */
            if (isfinite(ceiling)) ceiling += BOUND_SLACK * (fabs(ceiling) + 1.0);
            if (ceiling < c->floor) continue;
        }
        Found rank = highest_rank(s, x->start, sigma);
        int outranked = 0;
        for (Py_ssize_t j = 0; j < c->held && !outranked; j++) {
            double tied_up_to = tie_ceiling(c->choices[j].value);
            outranked = ranks_above(&c->choices[j], &rank) && ceiling <= tied_up_to &&
                        c->top <= tied_up_to;
        }
        if (outranked) {
            skipped[skips++] = sigma;
            if (ceiling > highest_skipped) highest_skipped = ceiling;
            continue;
        }
        int status = evaluate_sigma(x, sigma);
        if (status != FOUND) return status;
    }
    *chosen = best_choice(c);
    if (skips == 0) return FOUND;
    /* A skipped window is worth at most highest_skipped: if the window chosen is tied with
     * that and outranks every skipped sigma's windows, none of them changes the choice. */
    double sure = tie_floor(highest_skipped > c->top ? highest_skipped : c->top);
    int settled = *chosen != NULL && (*chosen)->value >= sure;
    for (Py_ssize_t k = 0; k < skips && settled; k++) {
        Found rank = highest_rank(s, x->start, skipped[k]);
        settled = ranks_above(*chosen, &rank);
    }
    if (!settled) {
        for (Py_ssize_t k = 0; k < skips; k++) {
            int status = evaluate_sigma(x, skipped[k]);
            if (status != FOUND) return status;
        }
        *chosen = best_choice(c);
    }
    return FOUND;
}

/* Candidates.from_table's order when some start moved to the earliest start. */
typedef struct {
    double start;
    int64_t node, row;
} Keyed;

static int by_start_then_node(const void *a_, const void *b_) {
    const Keyed *a = a_, *b = b_;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

typedef struct {
    double price;
    int64_t slot;
} Priced;

static int by_price(const void *a_, const void *b_) {
    const Priced *a = a_, *b = b_;
    if (a->price != b->price) return a->price < b->price ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

const char placement_find_doc[] =
    "placement_find(node, start, end, performance, price, eligible, n, volume,\n"
    "               min_performance, earliest_start, time_quantum, rules)\n"
    "    -> None | False | (value, start, runtime, rows)\n\n"
    "The window find_window chooses for a request without a budget under CoP or PAST, from a\n"
    "slot table (start-sorted arrays; price: each slot's price for the request; eligible:\n"
    "None or a uint8 array, 1 where the slot's node may be used). None: no window; False:\n"
    "a value is not finite (the caller runs the Python search); else the window's value,\n"
    "start and runtime and its slots as table rows, the slowest first, then the others in\n"
    "the candidates' order.";

PyObject *placement_find(PyObject *self, PyObject *args) {
    PyObject *objects[5], *eligible_o, *rules_o;
    Py_ssize_t n;
    double volume, min_performance, earliest, quantum;
    if (!PyArg_ParseTuple(args, "OOOOOOnddddO", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &eligible_o, &n, &volume,
                          &min_performance, &earliest, &quantum, &rules_o))
        return NULL;
    Search x = {0};
    if (parse_rules(rules_o, &x.rules) < 0) return NULL;
    Py_buffer views[6] = {{0}};
    PyObject *result = NULL;
    void *arena = NULL;
    Py_ssize_t rows = -1;
    for (int k = 0; k < 5; k++) {
        if (get_vector(objects[k], &views[k], rows, 0) < 0) goto done;
        if (k == 0) rows = views[0].len / 8;
    }
    const unsigned char *eligible = NULL;
    if (eligible_o != Py_None) {
        if (PyObject_GetBuffer(eligible_o, &views[5], PyBUF_C_CONTIGUOUS) < 0) goto done;
        if (views[5].len < rows) {
            PyErr_SetString(PyExc_ValueError, "eligible: one byte per slot expected");
            goto done;
        }
        eligible = views[5].buf;
    }
    const int64_t *node = views[0].buf;
    const double *t_start = views[1].buf, *t_end = views[2].buf, *t_perf = views[3].buf;
    const double *t_price = views[4].buf;
    Py_ssize_t room = rows > 0 ? rows : 1, members = n > 1 ? n - 1 : 1;
    size_t bytes = (size_t)room * (7 * sizeof(double) + 3 * sizeof(int64_t) + sizeof(Keyed) +
                                   sizeof(Priced) + sizeof(Visit)) +
                   (size_t)members * (sizeof(Member) + sizeof(double));
    arena = PyMem_Malloc(bytes);
    x.contenders.choices = PyMem_Malloc(8 * sizeof(Found));
    if (arena == NULL || x.contenders.choices == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    x.contenders.room = 8;
    x.contenders.top = x.contenders.floor = -INFINITY;
    double *slot_start = arena, *start = slot_start + room, *end = start + room;
    double *perf = end + room, *price = perf + room, *runtime = price + room;
    int64_t *row_of = (int64_t *)(runtime + room), *order = row_of + room;
    int64_t *skipped = order + room;
    Keyed *keyed = (Keyed *)(skipped + room);
    Priced *priced = (Priced *)(keyed + room);
    Visit *visits = (Visit *)(priced + room);
    x.members = (Member *)(visits + room);
    x.values = (double *)(x.members + members);
    /* Candidates.from_table: eligible slots, free after the earliest start, by start. */
    Py_ssize_t m = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        double from = t_start[r] >= earliest ? t_start[r] : earliest;
        if (isnan(t_start[r]) || isnan(t_end[r]) || isnan(t_perf[r]) || isnan(t_price[r])) {
            result = Py_NewRef(Py_False);
            goto done;
        }
        if (!(t_perf[r] >= min_performance) || !(t_end[r] > from)) continue;
        if (eligible != NULL && !eligible[r]) continue;
        keyed[m].start = from, keyed[m].node = node[r], keyed[m].row = r;
        m++;
    }
    if (rows > 0 && !(t_start[0] >= earliest))
        qsort(keyed, (size_t)m, sizeof(Keyed), by_start_then_node);
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = keyed[i].row;
        row_of[i] = r, slot_start[i] = t_start[r], start[i] = keyed[i].start;
        end[i] = t_end[r], perf[i] = t_perf[r], price[i] = t_price[r];
        /* Request.runtime_on */
        double task = volume / perf[i];
        if (quantum > 0) {
            double quanta = ceil(task / quantum * (1 - 1e-12));
            task = (quanta >= 1.0 ? quanta : 1.0) * quantum;
        }
        runtime[i] = task;
        priced[i].price = price[i], priced[i].slot = i;
    }
    if (n < 1 || m < n) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    qsort(priced, (size_t)m, sizeof(Priced), by_price);
    for (Py_ssize_t i = 0; i < m; i++) order[i] = priced[i].slot;
    Py_ssize_t sigmas = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!(end[i] - start[i] >= runtime[i] * (1 - 1e-12))) continue;
        visits[sigmas].performance = perf[i], visits[sigmas].start = start[i];
        visits[sigmas++].sigma = i;
    }
    Slots s = {slot_start, end, perf, order, m};
    x.s = s, x.start = start, x.runtime = runtime, x.price = price;
    x.n = n, x.count = n - 1;
    const Found *chosen = NULL;
    int status = search(&x, visits, sigmas, skipped, &chosen);
    if (status == FAILED) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == DECLINE) {
        result = Py_NewRef(Py_False);
        goto done;
    }
    if (chosen == NULL) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The chosen row's members again (the same scan), in the candidates' order. */
    int64_t *others = skipped; /* free again */
    if (x.rules.kind >= MIN_FINISH) {
        first_members(&x, chosen, others);
    } else {
        Py_ssize_t held;
        row_value(&x.rules, &s, chosen->sigma, chosen->step, chosen->start,
                  runtime[chosen->sigma], -INFINITY, x.count, x.members, &held);
        for (Py_ssize_t k = 0; k < x.count; k++) others[k] = x.members[k].slot;
    }
    for (Py_ssize_t k = 1; k < x.count; k++) /* insertion sort of at most n - 1 indices */
        for (Py_ssize_t j = k; j > 0 && others[j - 1] > others[j]; j--) {
            int64_t swap = others[j];
            others[j] = others[j - 1], others[j - 1] = swap;
        }
    PyObject *slots = PyTuple_New(x.count + 1);
    if (slots == NULL) goto done;
    PyTuple_SET_ITEM(slots, 0, PyLong_FromLongLong(row_of[chosen->sigma]));
    for (Py_ssize_t k = 0; k < x.count; k++)
        PyTuple_SET_ITEM(slots, k + 1, PyLong_FromLongLong(row_of[others[k]]));
    result = Py_BuildValue("(dddN)", chosen->value, chosen->start, runtime[chosen->sigma],
                           slots);
done:
    PyMem_Free(arena);
    PyMem_Free(x.contenders.choices);
    for (int k = 0; k < 6; k++)
        if (views[k].obj != NULL) PyBuffer_Release(&views[k]);
    return result;
}
