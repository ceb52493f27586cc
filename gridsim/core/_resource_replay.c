/* A log replay on nodes with cores, memory and GPUs, compiled: the loop of
 * gridsim/sim/log_replay.py (completions handed over together) and the FCFS, EASY and
 * conservative planners of gridsim/scheduling/resource_schedulers.py on the profile of
 * _resource_profile.c.
 *
 * The Python modules are the reference and say why each rule is as it is; this file follows
 * them step for step (same event order, same searches in the same order, same float
 * expressions), so every start time, first reservation, allocation and counter is the same.
 * As in _replay.c, the queue is a linked list in priority order and the heaps are arrays of
 * (time, job) pairs compared as Python compares tuples.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_heap.h"
#include "_resource_profile.h"

enum { FCFS = 0, EASY = 1, CONSERVATIVE = 2 };
enum { WAITING = 0, QUEUED = 1, RUNNING = 2, DONE = 3 };

/* The jobs' requests as arrays: units, unit (jobs x kinds), one_per_node, total cores. */
typedef struct {
    int64_t *units, *unit, *cores;
    char *one_per_node;
} Requests;

typedef struct {
    int algorithm;
    Py_ssize_t jobs, kinds;
    Requests requests;
    const double *estimate;
    char *state;
    int64_t *next, *previous; /* the queue, a linked list in priority order */
    int64_t head, tail;
    Py_ssize_t queued;
    double *planned_end, *reserved, *first_reservation;
    Allocation *allocation; /* per job, its place (room for min(nodes, units) pairs) */
    Allocation found;       /* the last search's place (room for every node) */
    ResourceProfile profile;
    Heap starts;
    int64_t compressions, compression_moves;
} Planner;

static Request request_of(const Planner *planner, int64_t job) {
    Request request = {planner->requests.units[job],
                       planner->requests.unit + job * planner->kinds,
                       planner->requests.one_per_node[job]};
    return request;
}

static void queue_append(Planner *planner, int64_t job) {
    planner->state[job] = QUEUED;
    planner->next[job] = -1;
    planner->previous[job] = planner->tail;
    if (planner->tail >= 0) planner->next[planner->tail] = job; else planner->head = job;
    planner->tail = job;
    planner->queued++;
}

static void start_job(Planner *planner, int64_t job, double now) {
    int64_t before = planner->previous[job], after = planner->next[job];
    if (before >= 0) planner->next[before] = after; else planner->head = after;
    if (after >= 0) planner->previous[after] = before; else planner->tail = before;
    planner->queued--;
    planner->state[job] = RUNNING;
    planner->planned_end[job] = now + planner->estimate[job];
}

/* Hold or release (sign -1) the job's place over [start, start + estimate). */
static int hold(Planner *planner, int64_t job, double start, int sign) {
    Request request = request_of(planner, job);
    return resource_profile_add(&planner->profile, start, start + planner->estimate[job],
                                &planner->allocation[job], &request, sign);
}

/* The job takes the last search's place (found) from `start` on. */
static int take_found(Planner *planner, int64_t job, double start) {
    Allocation *place = &planner->allocation[job];
    if (place->node == NULL) {
        int64_t units = planner->requests.units[job];
        Py_ssize_t room = units < planner->profile.nodes ? units : planner->profile.nodes;
        place->node = PyMem_Malloc(room * sizeof(int32_t));
        place->units = PyMem_Malloc(room * sizeof(int64_t));
        if (place->node == NULL || place->units == NULL) { PyErr_NoMemory(); return -1; }
    }
    Py_ssize_t count = planner->found.count;
    memcpy(place->node, planner->found.node, count * sizeof(int32_t));
    memcpy(place->units, planner->found.units, count * sizeof(int64_t));
    place->count = count;
    return hold(planner, job, start, 1);
}

static double earliest_fit(Planner *planner, int64_t job, double now, double before) {
    Request request = request_of(planner, job);
    return resource_profile_earliest_fit(&planner->profile, now, &request,
                                         planner->estimate[job], before, &planner->found);
}

/* The job's start if it can start at `now` (NaN if not), its place in found. */
static double fit_now(Planner *planner, int64_t job, double now) {
    double after_now = nextafter(now, INFINITY);
    Request request = request_of(planner, job);
    if (!resource_profile_may_start_before(&planner->profile, now, &request, after_now))
        return NAN;
    return earliest_fit(planner, job, now, after_now);
}

static double next_decision(Planner *planner) {
    if (planner->algorithm != CONSERVATIVE) return INFINITY;
    Heap *starts = &planner->starts;
    while (starts->size > 0) {
        Entry top = starts->items[0];
        if (planner->state[top.job] == QUEUED && planner->reserved[top.job] == top.time)
            return top.time;
        heap_pop(starts); /* a reservation that moved or already started */
    }
    return INFINITY;
}

static int compress(Planner *planner, double now) {
    planner->compressions++;
    for (int64_t job = planner->head; job >= 0; job = planner->next[job]) {
        double reserved = planner->reserved[job];
        if (reserved <= now) continue;
        Request request = request_of(planner, job);
        if (!resource_profile_may_start_before(&planner->profile, now, &request, reserved))
            continue;
        if (hold(planner, job, reserved, -1) < 0) return -1;
        double start = earliest_fit(planner, job, now, reserved);
        if (isnan(start) || !(start < reserved)) { /* the guard: strictly earlier */
            if (hold(planner, job, reserved, 1) < 0) return -1;
            continue;
        }
        if (take_found(planner, job, start) < 0) return -1;
        planner->reserved[job] = start;
        if (heap_push(&planner->starts, start, job) < 0) return -1;
        planner->compression_moves++;
    }
    return 0;
}

static int complete(Planner *planner, double now, const int64_t *finished, Py_ssize_t count,
                    int early) {
    resource_profile_forget_before(&planner->profile, now);
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t job = finished[k];
        double planned_end = planner->planned_end[job];
        if (now < planned_end) {
            Request request = request_of(planner, job);
            if (resource_profile_add(&planner->profile, now, planned_end,
                                     &planner->allocation[job], &request, -1) < 0)
                return -1;
        }
        planner->state[job] = DONE;
    }
    if (planner->algorithm == CONSERVATIVE && early) return compress(planner, now);
    return 0;
}

static int submit_jobs(Planner *planner, double now, int64_t first, int64_t stop) {
    if (planner->algorithm != CONSERVATIVE) {
        for (int64_t job = first; job < stop; job++) queue_append(planner, job);
        return 0;
    }
    resource_profile_forget_before(&planner->profile, now);
    for (int64_t job = first; job < stop; job++) {
        double start = earliest_fit(planner, job, now, INFINITY);
        if (isnan(start)) {
            PyErr_Format(gridsim_planning_error, "job %lld never fits although it was checked",
                         (long long)job);
            return -1;
        }
        if (take_found(planner, job, start) < 0) return -1;
        queue_append(planner, job);
        planner->reserved[job] = planner->first_reservation[job] = start;
        if (heap_push(&planner->starts, start, job) < 0) return -1;
    }
    return 0;
}

/* Starts jobs at `now`, appending them to started[*count...]. */
static int starts(Planner *planner, double now, int64_t *started, Py_ssize_t *count) {
    if (planner->algorithm == CONSERVATIVE) {
        while (next_decision(planner) == now) {
            int64_t job = heap_pop(&planner->starts).job;
            start_job(planner, job, now);
            started[(*count)++] = job;
        }
        return 0;
    }
    resource_profile_forget_before(&planner->profile, now);
    int64_t head = -1;
    double head_start = 0.0;
    for (int64_t job = planner->head, after; job >= 0; job = after) {
        after = planner->next[job];
        double start = fit_now(planner, job, now);
        if (!isnan(start)) {
            if (take_found(planner, job, start) < 0) return -1;
            start_job(planner, job, now);
            started[(*count)++] = job;
            continue;
        }
        if (planner->algorithm == FCFS) break;
        if (head < 0) { /* EASY: the head holds its earliest place while the pass lasts */
            head_start = earliest_fit(planner, job, now, INFINITY);
            if (isnan(head_start)) {
                PyErr_Format(gridsim_planning_error,
                             "job %lld never fits although it was checked", (long long)job);
                return -1;
            }
            if (take_found(planner, job, head_start) < 0) return -1;
            head = job;
        }
    }
    if (head >= 0) return hold(planner, head, head_start, -1);
    return 0;
}

static void planner_free(Planner *planner) {
    if (planner->allocation != NULL) {
        for (Py_ssize_t job = 0; job < planner->jobs; job++) {
            PyMem_Free(planner->allocation[job].node);
            PyMem_Free(planner->allocation[job].units);
        }
    }
    PyMem_Free(planner->allocation);
    PyMem_Free(planner->found.node);
    PyMem_Free(planner->found.units);
    PyMem_Free(planner->state);
    PyMem_Free(planner->next);
    PyMem_Free(planner->previous);
    PyMem_Free(planner->planned_end);
    PyMem_Free(planner->reserved);
    PyMem_Free(planner->starts.items);
    resource_profile_free(&planner->profile);
}

static int planner_init(Planner *planner, int algorithm, const int64_t *capacity,
                        Py_ssize_t nodes, Py_ssize_t kinds, int exclusive, Py_ssize_t jobs,
                        Requests requests, const double *estimate, double *first_reservation,
                        double now) {
    memset(planner, 0, sizeof(*planner));
    Py_ssize_t n = jobs > 0 ? jobs : 1;
    planner->algorithm = algorithm;
    planner->jobs = jobs;
    planner->kinds = kinds;
    planner->requests = requests;
    planner->estimate = estimate;
    planner->head = planner->tail = -1;
    planner->first_reservation = first_reservation;
    planner->allocation = PyMem_Calloc(n, sizeof(Allocation));
    planner->found.node = PyMem_Malloc(nodes * sizeof(int32_t));
    planner->found.units = PyMem_Malloc(nodes * sizeof(int64_t));
    planner->state = PyMem_Calloc(n, 1);
    planner->next = PyMem_Malloc(n * sizeof(int64_t));
    planner->previous = PyMem_Malloc(n * sizeof(int64_t));
    planner->planned_end = PyMem_Malloc(n * sizeof(double));
    planner->reserved = PyMem_Malloc(n * sizeof(double));
    if (!planner->allocation || !planner->found.node || !planner->found.units ||
        !planner->state || !planner->next || !planner->previous || !planner->planned_end ||
        !planner->reserved) {
        PyErr_NoMemory();
        return -1;
    }
    return resource_profile_init(&planner->profile, capacity, nodes, kinds, exclusive, now);
}

/* The event loop of log_replay._replay_python (completions handed over together). */
static int run(Planner *planner, const double *submit, const double *duration, double *start,
               int64_t machine, PyObject *on_progress, Py_ssize_t progress_every,
               int64_t *peak_out, int64_t *events_out) {
    Py_ssize_t count = planner->jobs;
    const int64_t *cores = planner->requests.cores;
    const double *estimate = planner->estimate;
    Heap completions = {NULL, 0, 0};
    int64_t *finished = PyMem_Malloc((count ? count : 1) * sizeof(int64_t));
    int64_t *starting = PyMem_Malloc((count ? count : 1) * sizeof(int64_t));
    int status = -1;
    if (finished == NULL || starting == NULL) { PyErr_NoMemory(); goto done; }
    int64_t in_use = 0, peak = 0, events = 0;
    Py_ssize_t next_arrival = 0;
    while (next_arrival < count || completions.size > 0 || planner->queued > 0) {
        double now = next_arrival < count ? submit[next_arrival] : INFINITY;
        if (completions.size > 0 && completions.items[0].time < now)
            now = completions.items[0].time;
        double decision = next_decision(planner);
        if (decision < now) now = decision;
        if (now == INFINITY) {
            PyErr_Format(gridsim_planning_error, "%zd jobs queued but nothing will happen",
                         planner->queued);
            goto done;
        }
        events++;
        Py_ssize_t finished_count = 0, starting_count = 0;
        int early = 0;
        while (completions.size > 0 && completions.items[0].time == now) {
            int64_t job = heap_pop(&completions).job;
            finished[finished_count++] = job;
            early = early || duration[job] < estimate[job];
            in_use -= cores[job];
        }
        if (complete(planner, now, finished, finished_count, early) < 0) goto done;
        Py_ssize_t first = next_arrival;
        while (next_arrival < count && submit[next_arrival] == now) next_arrival++;
        if (next_arrival > first && submit_jobs(planner, now, first, next_arrival) < 0) goto done;
        if (starts(planner, now, starting, &starting_count) < 0) goto done;
        for (Py_ssize_t k = 0; k < starting_count; k++) {
            int64_t job = starting[k];
            start[job] = now;
            if (heap_push(&completions, now + duration[job], job) < 0) goto done;
            in_use += cores[job];
        }
        if (in_use > peak) {
            peak = in_use;
            if (peak > machine) {
                PyErr_Format(gridsim_planning_error, "%lld cores in use on %lld",
                             (long long)peak, (long long)machine);
                goto done;
            }
        }
        if (on_progress != Py_None && events % progress_every == 0) {
            PyObject *result = PyObject_CallFunction(on_progress, "d", now);
            if (result == NULL) goto done;
            Py_DECREF(result);
        }
    }
    *peak_out = peak;
    *events_out = events;
    status = 0;
done:
    PyMem_Free(completions.items);
    PyMem_Free(finished);
    PyMem_Free(starting);
    return status;
}

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

static int get_vector(PyObject *object, Py_buffer *view, Py_ssize_t jobs, int writable,
                      const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (view->itemsize != 8 || view->len != jobs * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd 8-byte values", name, jobs);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
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
    if (get_vector(submit_o, &submit, jobs, 0, "submit") < 0 ||
        get_vector(estimate_o, &estimate, jobs, 0, "estimate") < 0 ||
        get_vector(duration_o, &duration, jobs, 0, "duration") < 0 ||
        get_vector(start_o, &start, jobs, 1, "start") < 0 ||
        get_vector(first_o, &first, jobs, 1, "first_reservation") < 0 ||
        read_requests(requests_o, jobs, kinds, &requests) < 0)
        goto done;
    double first_time = jobs ? ((double *)submit.buf)[0] : 0.0;
    planner_ready = 1;
    if (planner_init(&planner, algorithm, amounts, nodes, kinds, exclusive, jobs, requests,
                     estimate.buf, first.buf, first_time) < 0 ||
        check_fits(&planner.profile, &requests, jobs) < 0)
        goto done;
    int64_t peak, events;
    if (run(&planner, submit.buf, duration.buf, start.buf, machine, on_progress,
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
