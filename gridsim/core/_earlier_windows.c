/* Can a reserved job get an earlier window? The planners' test before a re-planning search,
 * compiled.
 *
 * gridsim/scheduling/earlier_windows.py (may_move_earlier, _starts_before) is the reference
 * and says why the test is sound: the same comparisons, the same float expressions, so the
 * same answer; here one pass over the slot table instead of a dozen NumPy calls.
 */
#include "_placement.h"

#include <stdlib.h>

typedef struct {
    double time;
    int change; /* +1: a start range opens, -1: one closes */
} Event;

static int by_time_then_change(const void *a_, const void *b_) {
    const Event *a = a_, *b = b_;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    return (a->change > b->change) - (a->change < b->change);
}

const char may_move_earlier_doc[] =
    "may_move_earlier(node, start, end, performance, node_performance, old_nodes, n,\n"
    "                 min_performance, earliest_start, old_start, old_runtime, tolerance,\n"
    "                 slack) -> bool\n\n"
    "gridsim.scheduling.earlier_windows.may_move_earlier on a slot table's columns, the\n"
    "nodes' performances by id and the reserved window's nodes (a tuple), start and runtime.";

PyObject *may_move_earlier(PyObject *self, PyObject *args) {
    PyObject *columns_o[5], *old_nodes_o;
    Py_ssize_t n;
    double min_performance, earliest, old_start, old_runtime, tolerance, slack;
    if (!PyArg_ParseTuple(args, "OOOOOO!ndddddd", &columns_o[0], &columns_o[1], &columns_o[2],
                          &columns_o[3], &columns_o[4], &PyTuple_Type, &old_nodes_o, &n,
                          &min_performance, &earliest, &old_start, &old_runtime, &tolerance,
                          &slack))
        return NULL;
    Py_buffer views[5] = {{0}};
    PyObject *result = NULL;
    unsigned char *on_old = NULL;
    Event *events = NULL;
    Py_ssize_t rows = -1, nodes = -1;
    for (int k = 0; k < 4; k++) {
        if (get_vector(columns_o[k], &views[k], rows, 0) < 0) goto done;
        if (k == 0) rows = views[0].len / 8;
    }
    if (get_vector(columns_o[4], &views[4], -1, 0) < 0) goto done;
    nodes = views[4].len / 8;
    const int64_t *node = views[0].buf;
    const double *start = views[1].buf, *end = views[2].buf, *perf = views[3].buf;
    const double *node_perf = views[4].buf;
    on_old = PyMem_Calloc((size_t)(nodes ? nodes : 1), 1);
    events = PyMem_Malloc((size_t)(rows ? 2 * rows : 1) * sizeof(Event));
    if (on_old == NULL || events == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t old_count = PyTuple_GET_SIZE(old_nodes_o);
    for (Py_ssize_t k = 0; k < old_count; k++) {
        Py_ssize_t id = PyLong_AsSsize_t(PyTuple_GET_ITEM(old_nodes_o, k));
        if (id == -1 && PyErr_Occurred()) goto done;
        if (id < 0 || id >= nodes) {
            PyErr_SetString(PyExc_IndexError, "old_nodes: a node id out of range");
            goto done;
        }
        on_old[id] = 1;
    }
    for (Py_ssize_t r = 0; r < rows; r++)
        if (node[r] < 0 || node[r] >= nodes) {
            PyErr_SetString(PyExc_IndexError, "node: an id out of range");
            goto done;
        }
    /* The reserved window's slowest node, and how many of its nodes are faster. */
    double slowest = INFINITY;
    for (Py_ssize_t id = 0; id < nodes; id++)
        if (on_old[id] && node_perf[id] < slowest) slowest = node_perf[id];
    Py_ssize_t faster_old = 0;
    for (Py_ssize_t id = 0; id < nodes; id++) faster_old += on_old[id] && node_perf[id] > slowest;
    double volume = old_runtime * slowest, finish = old_start + old_runtime;
    int answer = 0;
    /* _starts_before: n start ranges overlapping before the reserved start. */
    double latest = old_start - tolerance;
    if (earliest < latest) {
        Py_ssize_t kept = 0;
        for (Py_ssize_t r = 0; r < rows; r++) {
            if (!(perf[r] >= min_performance)) continue;
            int touching = on_old[node[r]] && end[r] >= old_start - slack &&
                           start[r] <= old_start + slack;
            double range_start = start[r] >= earliest ? start[r] : earliest;
            double until = touching ? finish : (end[r] <= finish ? end[r] : finish);
            double range_end = until + (tolerance + slack) - volume / perf[r];
            if (!(range_start < latest) || !(range_start < range_end)) continue;
            events[2 * kept].time = range_start, events[2 * kept].change = 1;
            events[2 * kept + 1].time = range_end, events[2 * kept + 1].change = -1;
            kept++;
        }
        if (kept >= n) {
            qsort(events, (size_t)(2 * kept), sizeof(Event), by_time_then_change);
            Py_ssize_t open = 0;
            for (Py_ssize_t k = 0; k < 2 * kept && !answer; k++) {
                open += events[k].change;
                answer = open >= n;
            }
        }
    }
    if (!answer) {
        /* A window starting with the reserved one on faster nodes only. */
        Py_ssize_t around = 0;
        for (Py_ssize_t r = 0; r < rows; r++) {
            if (!(perf[r] >= min_performance) || !(perf[r] > slowest) || on_old[node[r]])
                continue;
            double range_end = end[r] + slack - volume / perf[r];
            around += start[r] <= old_start + tolerance && range_end > old_start - tolerance;
        }
        answer = around + faster_old >= n;
    }
    result = PyBool_FromLong(answer);
done:
    PyMem_Free(on_old);
    PyMem_Free(events);
    for (int k = 0; k < 5; k++)
        if (views[k].obj != NULL) PyBuffer_Release(&views[k]);
    return result;
}
