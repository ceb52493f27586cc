/* The profile's slot table patched after a reservation or a release, compiled.
 *
 * gridsim/profile.py (Profile._patch) is the reference: the rows of the nodes a change
 * touched are replaced by those nodes' free intervals now, and the table stays sorted by
 * (start, node). There, a concatenation and a lexsort of the whole table; here one merge of
 * the rows kept (already in order) with the new rows (sorted among themselves). No two rows
 * share a start and a node (a node's free intervals are disjoint), so the order is the
 * lexsort's, row for row.
 */
#include "_placement.h"

#include <stdlib.h>

typedef struct {
    double start, end;
    int64_t node;
} NewRow;

static int by_start_then_node(const void *a_, const void *b_) {
    const NewRow *a = a_, *b = b_;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

/* Read `free[node]`, a list of (start, end) tuples, into rows; -1 with an exception set. */
static Py_ssize_t read_intervals(PyObject *intervals, int64_t node, NewRow *rows) {
    if (!PyList_Check(intervals)) {
        PyErr_SetString(PyExc_TypeError, "free intervals: a list per node expected");
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(intervals);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *pair = PyList_GET_ITEM(intervals, k);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "free intervals: (start, end) tuples expected");
            return -1;
        }
        rows[k].start = PyFloat_AsDouble(PyTuple_GET_ITEM(pair, 0));
        rows[k].end = PyFloat_AsDouble(PyTuple_GET_ITEM(pair, 1));
        if (PyErr_Occurred()) return -1;
        rows[k].node = node;
    }
    return count;
}

const char patch_table_doc[] =
    "patch_table(node, start, end, performance, price, q, touched, free, node_performance,\n"
    "            node_price, node_q) -> (node, start, end, performance, price, q)\n\n"
    "The slot table (its six columns) with the rows of the nodes `touched` (a list of node\n"
    "ids) replaced by their free intervals in `free` (per node, a list of (start, end)\n"
    "tuples), sorted by (start, node); the node_* arrays give a new row's node attributes.\n"
    "The columns come back as bytearrays (int64 node ids, float64 otherwise).";

PyObject *patch_table(PyObject *self, PyObject *args) {
    PyObject *columns_o[6], *touched_o, *free_o, *attributes_o[3];
    if (!PyArg_ParseTuple(args, "OOOOOOO!O!OOO", &columns_o[0], &columns_o[1], &columns_o[2],
                          &columns_o[3], &columns_o[4], &columns_o[5], &PyList_Type,
                          &touched_o, &PyList_Type, &free_o, &attributes_o[0],
                          &attributes_o[1], &attributes_o[2]))
        return NULL;
    Py_buffer views[9] = {{0}};
    PyObject *result = NULL, *out[6] = {NULL};
    unsigned char *is_touched = NULL;
    NewRow *rows = NULL;
    Py_ssize_t table_rows = -1, nodes = PyList_GET_SIZE(free_o);
    for (int k = 0; k < 6; k++) {
        if (get_vector(columns_o[k], &views[k], table_rows, 0) < 0) goto done;
        if (k == 0) table_rows = views[0].len / 8;
    }
    for (int k = 0; k < 3; k++)
        if (get_vector(attributes_o[k], &views[6 + k], nodes, 0) < 0) goto done;
    const int64_t *node = views[0].buf;
    const double *column[5] = {views[1].buf, views[2].buf, views[3].buf, views[4].buf,
                               views[5].buf};
    const double *attribute[3] = {views[6].buf, views[7].buf, views[8].buf};
    is_touched = PyMem_Calloc((size_t)(nodes ? nodes : 1), 1);
    if (is_touched == NULL) goto no_memory;
    Py_ssize_t new_rows = 0, touched = PyList_GET_SIZE(touched_o);
    for (Py_ssize_t k = 0; k < touched; k++) {
        Py_ssize_t id = PyLong_AsSsize_t(PyList_GET_ITEM(touched_o, k));
        if (id == -1 && PyErr_Occurred()) goto done;
        if (id < 0 || id >= nodes) {
            PyErr_SetString(PyExc_IndexError, "touched: a node id out of range");
            goto done;
        }
        PyObject *intervals = PyList_GET_ITEM(free_o, id);
        if (!is_touched[id] && PyList_Check(intervals)) new_rows += PyList_GET_SIZE(intervals);
        is_touched[id] = 1;
    }
    rows = PyMem_Malloc((size_t)(new_rows ? new_rows : 1) * sizeof(NewRow));
    if (rows == NULL) goto no_memory;
    Py_ssize_t read = 0;
    for (Py_ssize_t id = 0; id < nodes; id++) {
        if (!is_touched[id]) continue;
        Py_ssize_t count = read_intervals(PyList_GET_ITEM(free_o, id), id, rows + read);
        if (count < 0) goto done;
        read += count;
    }
    qsort(rows, (size_t)read, sizeof(NewRow), by_start_then_node);
    Py_ssize_t kept = 0;
    for (Py_ssize_t r = 0; r < table_rows; r++) {
        if (node[r] < 0 || node[r] >= nodes) {
            PyErr_SetString(PyExc_IndexError, "node: an id out of range");
            goto done;
        }
        kept += !is_touched[node[r]];
    }
    Py_ssize_t size = kept + read;
    for (int k = 0; k < 6; k++) {
        out[k] = PyByteArray_FromStringAndSize(NULL, size * 8);
        if (out[k] == NULL) goto done;
    }
    int64_t *out_node = (int64_t *)PyByteArray_AS_STRING(out[0]);
    double *out_column[5];
    for (int k = 0; k < 5; k++) out_column[k] = (double *)PyByteArray_AS_STRING(out[k + 1]);
    Py_ssize_t r = 0, fresh = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        while (r < table_rows && is_touched[node[r]]) r++;
        int take_old = fresh == read ||
                       (r < table_rows && (column[0][r] < rows[fresh].start ||
                                           (column[0][r] == rows[fresh].start &&
                                            node[r] < rows[fresh].node)));
        if (take_old) {
            out_node[i] = node[r];
            for (int k = 0; k < 5; k++) out_column[k][i] = column[k][r];
            r++;
        } else {
            int64_t id = rows[fresh].node;
            out_node[i] = id;
            out_column[0][i] = rows[fresh].start, out_column[1][i] = rows[fresh].end;
            for (int k = 0; k < 3; k++) out_column[k + 2][i] = attribute[k][id];
            fresh++;
        }
    }
    result = PyTuple_Pack(6, out[0], out[1], out[2], out[3], out[4], out[5]);
    goto done;
no_memory:
    PyErr_NoMemory();
done:
    for (int k = 0; k < 6; k++) Py_XDECREF(out[k]);
    PyMem_Free(is_touched);
    PyMem_Free(rows);
    for (int k = 0; k < 9; k++)
        if (views[k].obj != NULL) PyBuffer_Release(&views[k]);
    return result;
}
