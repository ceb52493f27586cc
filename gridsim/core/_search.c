/* The window search's inner loops for the placement criteria (CoP, PAST), compiled.
 *
 * gridsim/selection/criteria.py (SlotCriterion.choose, _hopeful_rows, sigma_bounds), steps.py
 * (Step.columns, compact, member_block), exact.py (choose_optimal without a budget),
 * window_search.py (Joinable) and placement.py (slot_values, slot_value_bound) are the
 * reference and say why each rule is as it is. This file follows them without a budget: the
 * same members, the same float expressions for every slot value (no fused multiply-add:
 * setup.py builds with -ffp-contract=off), the same window values (members' values sorted,
 * added left to right, then sigma's), the same members among equal values (the cheaper
 * column first), so the windows offered to the tie rule are those of the Python path, bit for
 * bit. Pruning sums (the best first step of each sigma) may be added in another order than
 * NumPy's partition leaves: they only decide which rows are left out, with a margin far above
 * rounding, and a row left out either way is below the tie floor of a window offered in the
 * same call. So may the sigma bounds, which only order and prune the search
 * (gridsim/selection/ties.py: the choice does not depend on the order of visits).
 */
#include "_placement.h"

typedef struct {
    const int64_t *sigma, *step;
    const double *start, *runtime;
    Py_ssize_t rows;
} Rows;

static int is_member(const Slots *s, const Rows *r, Py_ssize_t row, int64_t c,
                     double least_finish) {
    int64_t sigma = r->sigma[row];
    if (c > r->step[row] || c == sigma || s->performance[c] < s->performance[sigma]) return 0;
    return s->end[c] >= least_finish && s->end[c] >= r->start[row] + r->runtime[row];
}

/* Whether row r has at least `count` members (Step.compact). */
static int has_members(const Slots *s, const Rows *r, Py_ssize_t row, double least_finish,
                       Py_ssize_t count) {
    Py_ssize_t found = 0;
    for (Py_ssize_t position = 0; position < s->slots && found < count; position++)
        found += is_member(s, r, row, s->by_price[position], least_finish);
    return found >= count;
}

/* The `count` best members of row r (it has at least that many) in `best`: row_value. */
static double best_members(const Rules *rules, const Slots *s, const Rows *r, Py_ssize_t row,
                           double least_finish, Py_ssize_t count, Member *best) {
    Py_ssize_t held;
    return row_value(rules, s, r->sigma[row], r->step[row], r->start[row], r->runtime[row],
                     least_finish, count, best, &held);
}

PyDoc_STRVAR(placement_choose_doc,
"placement_choose(slot_start, end, performance, by_price, sigma, step, start, runtime, count,\n"
"                 found, rules, kept, value, members) -> int\n\n"
"The rows of a batch of steps without a budget that the exact search offers, with their\n"
"window values and best members (slot indices): written to kept, value and members (rows x\n"
"count); their number, or -1 if a value is not finite (the caller then runs the Python path).\n"
"rules: (kind, alpha1, alpha2, delta1, delta2, epsilon1, epsilon2, epsilon3, rule2_sign,\n"
"adjacent, bonus).");

static PyObject *placement_choose(PyObject *self, PyObject *args) {
    PyObject *objects[8], *rules_o, *out_o[3];
    Py_ssize_t count;
    double found;
    if (!PyArg_ParseTuple(args, "OOOOOOOOndOOOO", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5], &objects[6], &objects[7],
                          &count, &found, &rules_o, &out_o[0], &out_o[1], &out_o[2]))
        return NULL;
    Rules rules;
    if (parse_rules(rules_o, &rules) < 0) return NULL;
    if (count < 1) {
        PyErr_SetString(PyExc_ValueError, "count must be at least 1");
        return NULL;
    }
    Py_buffer views[11] = {{0}};
    PyObject *result = NULL;
    Member *members = NULL;
    signed char *enough = NULL;
    Py_ssize_t slots = -1, rows = -1;
    for (int k = 0; k < 8; k++) {
        Py_ssize_t items = k < 4 ? slots : rows;
        if (get_vector(objects[k], &views[k], items, 0) < 0) goto done;
        if (k == 0) slots = views[0].len / 8;
        if (k == 4) rows = views[4].len / 8;
    }
    for (int k = 0; k < 3; k++)
        if (get_vector(out_o[k], &views[8 + k], k < 2 ? rows : rows * count, 1) < 0) goto done;
    Slots s = {views[0].buf, views[1].buf, views[2].buf, views[3].buf, slots};
    Rows r = {views[4].buf, views[5].buf, views[6].buf, views[7].buf, rows};
    int64_t *kept = views[8].buf, *chosen = views[10].buf;
    double *value = views[9].buf;
    members = PyMem_Malloc((size_t)(slots ? slots : 1) * sizeof(Member));
    enough = PyMem_Malloc((size_t)(rows ? rows : 1));
    if (members == NULL || enough == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t written = 0;
    if (rows == 0) goto finished;
    /* Step.columns: the columns end no earlier than the least finish, less a margin. */
    double least_finish = r.start[0] + r.runtime[0];
    for (Py_ssize_t row = 1; row < rows; row++) {
        double finish = r.start[row] + r.runtime[row];
        if (finish < least_finish) least_finish = finish;
    }
    least_finish = least_finish * (1 - 1e-15);
    /* compact and _hopeful_rows: the first row with enough members of each sigma (rows come
     * grouped by sigma) gives a window found (known); rows before it have too few, rows after
     * it whose bound is below the tie floor of known are left out, the others are tested. */
    enum { UNTESTED = -1, TOO_FEW = 0, ENOUGH = 1 };
    double known = found;
    int any = 0;
    for (Py_ssize_t row = 0; row < rows;) {
        Py_ssize_t end = row;
        while (end < rows && r.sigma[end] == r.sigma[row]) end++;
        for (; row < end; row++) {
            enough[row] = (char)has_members(&s, &r, row, least_finish, count);
            if (enough[row] == ENOUGH) {
                double total = best_members(&rules, &s, &r, row, least_finish, count, members);
                if (total > known) known = total;
                any = 1;
                break;
            }
        }
        for (row = row < end ? row + 1 : end; row < end; row++) enough[row] = UNTESTED;
    }
    if (!any) goto finished;
    int prune = !isnan(rules.bonus) && isfinite(known);
    double threshold = 0.0;
    if (prune) threshold = known - 1e-12 * (fabs(known) + 1.0) - 1e-9 * (fabs(known) + 1.0);
    for (Py_ssize_t row = 0; row < rows; row++) {
        if (enough[row] == TOO_FEW) continue;
        if (prune) {
            double start = r.start[row], runtime = r.runtime[row];
            double base = -(start + runtime) - rules.alpha1 * s.performance[r.sigma[row]];
            if (!((double)(count + 1) * (base + rules.bonus) >= threshold)) continue;
        }
        if (enough[row] == UNTESTED && !has_members(&s, &r, row, least_finish, count)) continue;
        double total = best_members(&rules, &s, &r, row, least_finish, count, members);
        if (!isfinite(total)) {
            written = -1;
            goto finished;
        }
        kept[written] = row;
        value[written] = total;
        for (Py_ssize_t k = 0; k < count; k++) chosen[written * count + k] = members[k].slot;
        written++;
    }
finished:
    result = PyLong_FromSsize_t(written);
done:
    PyMem_Free(members);
    PyMem_Free(enough);
    for (int k = 0; k < 11; k++)
        if (views[k].obj != NULL) PyBuffer_Release(&views[k]);
    return result;
}

PyDoc_STRVAR(placement_sigma_bounds_doc,
"placement_sigma_bounds(slot_start, start, end, performance, sigmas, runtimes, n, rules,\n"
"                       bounds) -> None\n\n"
"Each sigma's bound without a budget (SlotCriterion.sigma_bounds): sigma's own slot bound\n"
"plus its n - 1 best joiners' (-inf with fewer joiners), written to bounds.");

static PyObject *placement_sigma_bounds(PyObject *self, PyObject *args) {
    PyObject *objects[6], *rules_o, *bounds_o;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOOOOOnOO", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5], &n, &rules_o, &bounds_o))
        return NULL;
    Rules rules;
    if (parse_rules(rules_o, &rules) < 0) return NULL;
    Py_buffer views[7] = {{0}};
    PyObject *result = NULL;
    Member *best = NULL;
    Py_ssize_t slots = -1, count = -1;
    for (int k = 0; k < 6; k++) {
        if (get_vector(objects[k], &views[k], k < 4 ? slots : count, 0) < 0) goto done;
        if (k == 0) slots = views[0].len / 8;
        if (k == 4) count = views[4].len / 8;
    }
    if (get_vector(bounds_o, &views[6], count, 1) < 0) goto done;
    const double *start = views[1].buf, *runtimes = views[5].buf;
    const int64_t *sigmas = views[4].buf;
    double *bounds = views[6].buf;
    Slots s = {views[0].buf, views[2].buf, views[3].buf, NULL, slots};
    best = PyMem_Malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof(Member));
    if (best == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        bounds[i] = sigma_bound(&rules, &s, start, sigmas[i], runtimes[i], n, best);
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(best);
    for (int k = 0; k < 7; k++)
        if (views[k].obj != NULL) PyBuffer_Release(&views[k]);
    return result;
}

static PyMethodDef methods[] = {
    {"placement_choose", placement_choose, METH_VARARGS, placement_choose_doc},
    {"placement_sigma_bounds", placement_sigma_bounds, METH_VARARGS, placement_sigma_bounds_doc},
    {"placement_find", placement_find, METH_VARARGS, placement_find_doc},
    {"patch_table", patch_table, METH_VARARGS, patch_table_doc},
    {"may_move_earlier", may_move_earlier, METH_VARARGS, may_move_earlier_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_search",
    "The window search's inner loops, compiled (gridsim.core.search is the interface).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) { return PyModule_Create(&module_definition); }
