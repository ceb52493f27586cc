/* The Python entry of the compiled multi-resource replay: the arguments checked and turned
 * into arrays, the planners of _resource_planners.c run, the results handed back
 * (gridsim/core/replay.py, replay_resources_compiled, is the caller).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "_buffers.h"
#include "_resource_planners.h"

static void requests_free(Requests *requests) {
    PyMem_Free(requests->units);
    PyMem_Free(requests->unit);
    PyMem_Free(requests->cores);
    PyMem_Free(requests->one_per_node);
}

/* The ResourceRequest objects' fields as arrays; -1 with an exception on a malformed one. */
static int read_requests(PyObject *sequence, Py_ssize_t jobs, Py_ssize_t kinds,
                         Requests *requests) {
    Py_ssize_t n = jobs > 0 ? jobs : 1;
    requests->units = PyMem_Malloc(n * sizeof(int64_t));
    requests->unit = PyMem_Malloc(n * kinds * sizeof(int64_t));
    requests->cores = PyMem_Malloc(n * sizeof(int64_t));
    requests->one_per_node = PyMem_Malloc(n);
    if (!requests->units || !requests->unit || !requests->cores || !requests->one_per_node) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *fast = PySequence_Fast(sequence, "requests: expected a sequence");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != jobs) {
        PyErr_Format(PyExc_ValueError, "requests: expected %zd, got %zd", jobs,
                     PySequence_Fast_GET_SIZE(fast));
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t job = 0; job < jobs; job++) {
        PyObject *units = PyObject_GetAttrString(items[job], "units");
        PyObject *unit = PyObject_GetAttrString(items[job], "unit");
        PyObject *one = PyObject_GetAttrString(items[job], "one_per_node");
        int ok = units != NULL && unit != NULL && one != NULL && PyTuple_Check(unit) &&
                 PyTuple_GET_SIZE(unit) == kinds;
        if (ok) {
            requests->units[job] = PyLong_AsLongLong(units);
            for (Py_ssize_t k = 0; k < kinds; k++)
                requests->unit[job * kinds + k] = PyLong_AsLongLong(PyTuple_GET_ITEM(unit, k));
            requests->one_per_node[job] = (char)PyObject_IsTrue(one);
            requests->cores[job] = requests->units[job] * requests->unit[job * kinds];
            ok = !PyErr_Occurred();
        }
        Py_XDECREF(units);
        Py_XDECREF(unit);
        Py_XDECREF(one);
        if (!ok) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "requests[%zd]: expected %zd amounts", job, kinds);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* ValueError("never fits", position) for the first job no set of idle nodes holds. */
static int check_fits(ResourceProfile *profile, const Requests *requests, Py_ssize_t jobs) {
    Py_ssize_t kinds = profile->kinds;
    int64_t held = 0;
    for (Py_ssize_t job = 0; job < jobs; job++) {
        Request request = {requests->units[job], requests->unit + job * kinds,
                           requests->one_per_node[job]};
        int same = job > 0 && request.one_per_node == requests->one_per_node[job - 1] &&
                   memcmp(request.unit, request.unit - kinds, kinds * sizeof(int64_t)) == 0;
        if (!same) held = resource_profile_units_when_idle(profile, &request);
        if (request.units <= 0 || held < request.units) {
            PyObject *why = Py_BuildValue("(sn)", "never fits", job);
            if (why != NULL) PyErr_SetObject(PyExc_ValueError, why);
            Py_XDECREF(why);
            return -1;
        }
    }
    return 0;
}

/* Per job (priority order), its ((node, units), ...) tuple. */
static PyObject *allocation_tuples(const Planner *planner) {
    PyObject *list = PyList_New(planner->jobs);
    if (list == NULL) return NULL;
    for (Py_ssize_t job = 0; job < planner->jobs; job++) {
        const Allocation *place = &planner->allocation[job];
        Py_ssize_t count = place->count;
        PyObject *pairs = PyTuple_New(count);
        if (pairs == NULL) { Py_DECREF(list); return NULL; }
        for (Py_ssize_t k = 0; k < count; k++) {
            PyObject *pair = Py_BuildValue("(iL)", (int)place->node[k],
                                           (long long)place->units[k]);
            if (pair == NULL) { Py_DECREF(pairs); Py_DECREF(list); return NULL; }
            PyTuple_SET_ITEM(pairs, k, pair);
        }
        PyList_SET_ITEM(list, job, pairs);
    }
    return list;
}

const char gridsim_replay_resources_doc[] =
"replay_resources(requests, capacity, exclusive, submit, estimate, duration, algorithm,\n"
"                 on_progress, progress_every, start, first_reservation)\n"
"\n"
"Replay jobs in priority order (ResourceRequest objects, float64 arrays) on nodes of\n"
"`capacity` (int64, nodes x kinds) under algorithm 0 (FCFS), 1 (EASY) or 2 (conservative);\n"
"fills `start` and `first_reservation` and returns (peak cores, events, compressions,\n"
"compression moves, per job its ((node, units), ...)). A job no set of idle nodes holds\n"
"raises ValueError('never fits', position).";

PyObject *gridsim_replay_resources(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *requests_o, *capacity_o, *submit_o, *estimate_o, *duration_o, *on_progress;
    PyObject *start_o, *first_o;
    int exclusive, algorithm;
    Py_ssize_t progress_every;
    if (!PyArg_ParseTuple(args, "OOpOOOiOnOO", &requests_o, &capacity_o, &exclusive, &submit_o,
                          &estimate_o, &duration_o, &algorithm, &on_progress, &progress_every,
                          &start_o, &first_o))
        return NULL;
    if (algorithm < FCFS || algorithm > CONSERVATIVE || progress_every <= 0) {
        PyErr_SetString(PyExc_ValueError, "bad algorithm or progress interval");
        return NULL;
    }
    Py_ssize_t jobs = PyObject_Length(submit_o);
    if (jobs < 0) return NULL;
    Py_buffer capacity = {0}, submit = {0}, estimate = {0}, duration = {0}, start = {0};
    Py_buffer first = {0};
    Requests requests = {NULL, NULL, NULL, NULL};
    Planner planner;
    int planner_ready = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(capacity_o, &capacity, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        goto done;
    if (capacity.ndim != 2 || capacity.itemsize != 8 || capacity.shape[0] <= 0 ||
        capacity.shape[1] <= 0) {
        PyErr_SetString(PyExc_ValueError, "capacity: expected int64 nodes x kinds");
        goto done;
    }
    Py_ssize_t nodes = capacity.shape[0], kinds = capacity.shape[1];
    const int64_t *amounts = capacity.buf;
    int64_t machine = 0;
    for (Py_ssize_t n = 0; n < nodes; n++) machine += amounts[n * kinds];
    if (get_job_vector(submit_o, &submit, jobs, 0, "submit") < 0 ||
        get_job_vector(estimate_o, &estimate, jobs, 0, "estimate") < 0 ||
        get_job_vector(duration_o, &duration, jobs, 0, "duration") < 0 ||
        get_job_vector(start_o, &start, jobs, 1, "start") < 0 ||
        get_job_vector(first_o, &first, jobs, 1, "first_reservation") < 0 ||
        read_requests(requests_o, jobs, kinds, &requests) < 0)
        goto done;
    double first_time = jobs ? ((double *)submit.buf)[0] : 0.0;
    planner_ready = 1;
    if (planner_init(&planner, algorithm, amounts, nodes, kinds, exclusive, jobs, requests,
                     estimate.buf, first.buf, first_time) < 0 ||
        check_fits(&planner.profile, &requests, jobs) < 0)
        goto done;
    int64_t peak, events;
    if (planner_run(&planner, submit.buf, duration.buf, start.buf, machine, on_progress,
                    progress_every, &peak, &events) < 0)
        goto done;
    PyObject *allocations = allocation_tuples(&planner);
    if (allocations == NULL) goto done;
    result = Py_BuildValue("LLLLN", (long long)peak, (long long)events,
                           (long long)planner.compressions,
                           (long long)planner.compression_moves, allocations);
done:
    if (planner_ready) planner_free(&planner);
    requests_free(&requests);
    Py_buffer *views[] = {&capacity, &submit, &estimate, &duration, &start, &first};
    for (size_t k = 0; k < sizeof views / sizeof views[0]; k++)
        if (views[k]->obj != NULL) PyBuffer_Release(views[k]);
    return result;
}
