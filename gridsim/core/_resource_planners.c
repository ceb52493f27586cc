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

#include "_resource_planners.h"

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

void planner_free(Planner *planner) {
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

int planner_init(Planner *planner, int algorithm, const int64_t *capacity, Py_ssize_t nodes,
                 Py_ssize_t kinds, int exclusive, Py_ssize_t jobs, Requests requests,
                 const double *estimate, double *first_reservation, double now) {
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
int planner_run(Planner *planner, const double *submit, const double *duration, double *start,
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
