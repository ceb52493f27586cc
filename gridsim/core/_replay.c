/* A log replay on a processor count, compiled: the event loop of gridsim/sim/log_replay.py and
 * the FCFS, EASY and conservative planners of gridsim/scheduling/log_schedulers.py.
 *
 * The Python modules are the reference and say why each rule is as it is; this file follows
 * them step for step (same event order, same tie rules, same float expressions), so every
 * start time, first reservation, node id and work counter is the same. Only the containers
 * differ: the queue is a linked list in priority order (jobs arrive in that order, so they are
 * only appended), running jobs an array, the heaps arrays of (time, job) pairs compared as
 * Python compares tuples.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_buffers.h"
#include "_heap.h"
#include "_profile.h"

enum { FCFS = 0, EASY = 1, CONSERVATIVE = 2 };
enum { WAITING = 0, QUEUED = 1, RUNNING = 2, DONE = 3 };

PyObject *gridsim_planning_error;
#define PlanningError gridsim_planning_error

/* The planner's state: the three algorithms share the queue and running jobs. */
typedef struct {
    int algorithm;
    int64_t machine, free_now;
    Py_ssize_t jobs;
    const int64_t *processors;
    const double *estimate;
    char *state;
    int64_t *next, *previous; /* the queue, a linked list in priority order */
    int64_t head, tail;
    Py_ssize_t queued;
    double *planned_end;
    int64_t *running, *running_at; /* running jobs, and each one's index there */
    Py_ssize_t running_count;
    /* conservative */
    Profile profile;
    TooShort too_short;
    double *reserved, *first_reservation;
    Heap starts;
    int64_t *scratch, *moves;
    int64_t compressions, compression_moves;
    /* EASY's shadow time */
    Entry *ends;
} Planner;

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
    planner->free_now -= planner->processors[job];
    planner->running_at[job] = planner->running_count;
    planner->running[planner->running_count++] = job;
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
    Py_ssize_t length = 0;
    for (int64_t job = planner->head; job >= 0; job = planner->next[job])
        planner->scratch[length++] = job;
    Py_ssize_t moved;
    if (profile_compress(&planner->profile, &planner->too_short, now, planner->scratch, length,
                         planner->reserved, planner->processors, planner->estimate,
                         planner->moves, &moved) < 0)
        return -1;
    planner->compression_moves += moved;
    Heap *starts = &planner->starts;
    if (moved > length / 4) { /* rebuilding drops the stale entries too */
        starts->size = 0;
        for (Py_ssize_t k = 0; k < length; k++)
            if (heap_push(starts, planner->reserved[planner->scratch[k]], planner->scratch[k]) < 0)
                return -1;
    } else {
        for (Py_ssize_t k = 0; k < moved; k++)
            if (heap_push(starts, planner->reserved[planner->moves[k]], planner->moves[k]) < 0)
                return -1;
    }
    return 0;
}

static int complete(Planner *planner, double now, const int64_t *finished, Py_ssize_t count,
                    int early) {
    int conservative = planner->algorithm == CONSERVATIVE;
    if (conservative) profile_forget_before(&planner->profile, now);
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t job = finished[k];
        double planned_end = planner->planned_end[job];
        if (conservative && now < planned_end) {
            if (profile_add(&planner->profile, now, planned_end, -planner->processors[job]) < 0)
                return -1;
        }
        planner->state[job] = DONE;
        Py_ssize_t at = planner->running_at[job];
        int64_t last = planner->running[--planner->running_count];
        planner->running[at] = last;
        planner->running_at[last] = at;
        planner->free_now += planner->processors[job];
    }
    if (conservative && early) return compress(planner, now);
    return 0;
}

static int submit_jobs(Planner *planner, double now, int64_t first, int64_t stop) {
    if (planner->algorithm != CONSERVATIVE) {
        for (int64_t job = first; job < stop; job++) queue_append(planner, job);
        return 0;
    }
    Profile *profile = &planner->profile;
    profile_forget_before(profile, now);
    for (int64_t job = first; job < stop; job++) {
        int64_t p = planner->processors[job];
        double e = planner->estimate[job];
        double start = profile_earliest_fit(profile, now, p, e);
        if (isnan(start)) {
            PyErr_Format(PlanningError, "job %lld never fits the profile", (long long)job);
            return -1;
        }
        if (profile_add(profile, start, start + e, p) < 0) return -1;
        queue_append(planner, job);
        planner->reserved[job] = planner->first_reservation[job] = start;
        if (heap_push(&planner->starts, start, job) < 0) return -1;
    }
    return 0;
}

static int compare_ends(const void *a, const void *b) {
    Entry x = *(const Entry *)a, y = *(const Entry *)b;
    return entry_less(x, y) ? -1 : entry_less(y, x) ? 1 : 0;
}

/* EASY's shadow time: when the head fits by the running jobs' estimates; *extra gets the
 * processors it leaves. */
static int shadow_time(Planner *planner, int64_t head_processors, double *shadow,
                       int64_t *extra) {
    Py_ssize_t count = planner->running_count;
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t job = planner->running[k];
        planner->ends[k].time = planner->planned_end[job];
        planner->ends[k].job = job;
    }
    qsort(planner->ends, count, sizeof(Entry), compare_ends);
    int64_t free_ = planner->free_now;
    Py_ssize_t i = 0;
    while (i < count) {
        double time = planner->ends[i].time;
        while (i < count && planner->ends[i].time == time)
            free_ += planner->processors[planner->ends[i++].job];
        if (free_ >= head_processors) {
            *shadow = time;
            *extra = free_ - head_processors;
            return 0;
        }
    }
    PyErr_SetString(PlanningError, "the head never fits although it is no larger than the machine");
    return -1;
}

/* Starts jobs at `now`, appending them to started[*count...]. */
static int starts(Planner *planner, double now, int64_t *started, Py_ssize_t *count) {
    const int64_t *processors = planner->processors;
    if (planner->algorithm == CONSERVATIVE) {
        while (next_decision(planner) == now) {
            int64_t job = heap_pop(&planner->starts).job;
            start_job(planner, job, now);
            started[(*count)++] = job;
        }
        return 0;
    }
    if (planner->algorithm == FCFS) {
        while (planner->head >= 0 && processors[planner->head] <= planner->free_now) {
            int64_t job = planner->head;
            start_job(planner, job, now);
            started[(*count)++] = job;
        }
        return 0;
    }
    int has_shadow = 0;
    double shadow = 0.0;
    int64_t extra = 0;
    int64_t job = planner->head;
    while (job >= 0) {
        int64_t after = planner->next[job];
        if (planner->free_now == 0) break;
        int64_t p = processors[job];
        if (p > planner->free_now) {
            if (!has_shadow) {
                if (shadow_time(planner, p, &shadow, &extra) < 0) return -1;
                has_shadow = 1;
            }
            job = after;
            continue;
        }
        if (has_shadow) {
            int ends_by_shadow = shadow - now >= planner->estimate[job];
            if (!(ends_by_shadow || p <= extra)) { job = after; continue; }
            if (!ends_by_shadow) extra -= p;
        }
        start_job(planner, job, now);
        started[(*count)++] = job;
        job = after;
    }
    return 0;
}

typedef struct {
    Py_buffer submit, processors, estimate, duration, start, first_reservation;
} Buffers;

static void planner_free(Planner *planner) {
    PyMem_Free(planner->state);
    PyMem_Free(planner->next);
    PyMem_Free(planner->previous);
    PyMem_Free(planner->planned_end);
    PyMem_Free(planner->running);
    PyMem_Free(planner->running_at);
    PyMem_Free(planner->reserved);
    PyMem_Free(planner->scratch);
    PyMem_Free(planner->moves);
    PyMem_Free(planner->ends);
    PyMem_Free(planner->starts.items);
    profile_free(&planner->profile);
    too_short_free(&planner->too_short);
}

static int planner_init(Planner *planner, int algorithm, int64_t machine, Py_ssize_t jobs,
                        const int64_t *processors, const double *estimate,
                        double *first_reservation, double now) {
    memset(planner, 0, sizeof(*planner));
    Py_ssize_t n = jobs > 0 ? jobs : 1;
    planner->algorithm = algorithm;
    planner->machine = planner->free_now = machine;
    planner->jobs = jobs;
    planner->processors = processors;
    planner->estimate = estimate;
    planner->head = planner->tail = -1;
    planner->first_reservation = first_reservation;
    planner->state = PyMem_Calloc(n, 1);
    planner->next = PyMem_Malloc(n * sizeof(int64_t));
    planner->previous = PyMem_Malloc(n * sizeof(int64_t));
    planner->planned_end = PyMem_Malloc(n * sizeof(double));
    planner->running = PyMem_Malloc(n * sizeof(int64_t));
    planner->running_at = PyMem_Malloc(n * sizeof(int64_t));
    planner->reserved = PyMem_Malloc(n * sizeof(double));
    planner->scratch = PyMem_Malloc(n * sizeof(int64_t));
    planner->moves = PyMem_Malloc(n * sizeof(int64_t));
    planner->ends = PyMem_Malloc(n * sizeof(Entry));
    if (!planner->state || !planner->next || !planner->previous || !planner->planned_end ||
        !planner->running || !planner->running_at || !planner->reserved || !planner->scratch ||
        !planner->moves || !planner->ends) {
        PyErr_NoMemory();
        return -1;
    }
    return profile_init(&planner->profile, machine, now);
}

/* Per job (priority order), its node ids as a tuple. */
static PyObject *node_tuples(const int32_t *nodes, const int64_t *offset, Py_ssize_t jobs,
                             const int64_t *processors) {
    PyObject *list = PyList_New(jobs);
    if (list == NULL) return NULL;
    for (Py_ssize_t job = 0; job < jobs; job++) {
        PyObject *ids = PyTuple_New(processors[job]);
        if (ids == NULL) { Py_DECREF(list); return NULL; }
        for (int64_t k = 0; k < processors[job]; k++) {
            PyObject *id = PyLong_FromLong(nodes[offset[job] + k]);
            if (id == NULL) { Py_DECREF(ids); Py_DECREF(list); return NULL; }
            PyTuple_SET_ITEM(ids, k, id);
        }
        PyList_SET_ITEM(list, job, ids);
    }
    return list;
}

static int compare_ints(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int32_t *free_nodes, *nodes;
    int64_t *offset;
    Py_ssize_t free_count;
} NodeIds;

static int run(Planner *planner, const double *submit, const double *duration, double *start,
               int together, NodeIds *ids, PyObject *on_progress, Py_ssize_t progress_every,
               int64_t *peak_out, int64_t *events_out) {
    Py_ssize_t count = planner->jobs;
    const int64_t *processors = planner->processors;
    const double *estimate = planner->estimate;
    int64_t machine = planner->machine;
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
            PyErr_Format(PlanningError, "%zd jobs queued but nothing will happen",
                         planner->queued);
            goto done;
        }
        events++;
        Py_ssize_t finished_count = 0, starting_count = 0;
        while (completions.size > 0 && completions.items[0].time == now)
            finished[finished_count++] = heap_pop(&completions).job;
        Py_ssize_t group_size = together ? finished_count : 1;
        for (Py_ssize_t g = 0; g < finished_count; g += group_size) {
            int early = 0;
            for (Py_ssize_t k = g; k < g + group_size; k++) {
                int64_t job = finished[k];
                early = early || duration[job] < estimate[job];
                in_use -= processors[job];
                if (ids != NULL) {
                    memcpy(ids->free_nodes + ids->free_count, ids->nodes + ids->offset[job],
                           processors[job] * sizeof(int32_t));
                    ids->free_count += processors[job];
                }
            }
            if (complete(planner, now, finished + g, group_size, early) < 0) goto done;
            if (!together && starts(planner, now, starting, &starting_count) < 0) goto done;
        }
        Py_ssize_t first = next_arrival;
        while (next_arrival < count && submit[next_arrival] == now) next_arrival++;
        if (next_arrival > first && submit_jobs(planner, now, first, next_arrival) < 0) goto done;
        if (starts(planner, now, starting, &starting_count) < 0) goto done;
        for (Py_ssize_t k = 0; k < starting_count; k++) {
            int64_t job = starting[k];
            start[job] = now;
            if (heap_push(&completions, now + duration[job], job) < 0) goto done;
            in_use += processors[job];
            if (ids != NULL) {
                int64_t p = processors[job];
                if (p > ids->free_count) {
                    PyErr_Format(PlanningError, "job %lld needs %lld nodes, %zd free",
                                 (long long)job, (long long)p, ids->free_count);
                    goto done;
                }
                int32_t *taken = ids->nodes + ids->offset[job];
                ids->free_count -= p;
                memcpy(taken, ids->free_nodes + ids->free_count, p * sizeof(int32_t));
                qsort(taken, p, sizeof(int32_t), compare_ints);
            }
        }
        if (in_use > peak) {
            peak = in_use;
            if (peak > machine) {
                PyErr_Format(PlanningError, "%lld processors in use on %lld", (long long)peak,
                             (long long)machine);
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

PyDoc_STRVAR(replay_doc,
"replay(submit, processors, estimate, duration, machine, algorithm, together, record_nodes,\n"
"       on_progress, progress_every, start, first_reservation)\n"
"\n"
"Replay jobs in priority order (float64 and int64 arrays) on `machine` processors under\n"
"algorithm 0 (FCFS), 1 (EASY) or 2 (conservative); fills `start` and `first_reservation`\n"
"and returns (peak, events, compressions, scans, moves, node tuples or None).");

static PyObject *replay(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *submit_o, *processors_o, *estimate_o, *duration_o, *on_progress;
    PyObject *start_o, *first_o;
    long long machine;
    int algorithm, together, record_nodes;
    Py_ssize_t progress_every;
    if (!PyArg_ParseTuple(args, "OOOOLippOnOO", &submit_o, &processors_o, &estimate_o,
                          &duration_o, &machine, &algorithm, &together, &record_nodes,
                          &on_progress, &progress_every, &start_o, &first_o))
        return NULL;
    if (algorithm < FCFS || algorithm > CONSERVATIVE || machine <= 0 || progress_every <= 0) {
        PyErr_SetString(PyExc_ValueError, "bad algorithm, machine size or progress interval");
        return NULL;
    }
    Py_ssize_t jobs = PyObject_Length(submit_o);
    if (jobs < 0) return NULL;
    Buffers b;
    memset(&b, 0, sizeof b);
    PyObject *result = NULL;
    Planner planner;
    int planner_ready = 0;
    NodeIds ids = {NULL, NULL, NULL, 0};
    if (get_job_vector(submit_o, &b.submit, jobs, 0, "submit") < 0 ||
        get_job_vector(processors_o, &b.processors, jobs, 0, "processors") < 0 ||
        get_job_vector(estimate_o, &b.estimate, jobs, 0, "estimate") < 0 ||
        get_job_vector(duration_o, &b.duration, jobs, 0, "duration") < 0 ||
        get_job_vector(start_o, &b.start, jobs, 1, "start") < 0 ||
        get_job_vector(first_o, &b.first_reservation, jobs, 1, "first_reservation") < 0)
        goto done;
    const int64_t *processors = b.processors.buf;
    for (Py_ssize_t job = 0; job < jobs; job++) {
        if (processors[job] <= 0 || processors[job] > machine) {
            PyErr_Format(PyExc_ValueError, "job at position %zd needs %lld processors; the "
                         "machine has %lld", job, (long long)processors[job], machine);
            goto done;
        }
    }
    double first_time = jobs ? ((double *)b.submit.buf)[0] : 0.0;
    planner_ready = 1;
    if (planner_init(&planner, algorithm, machine, jobs, processors, b.estimate.buf,
                     b.first_reservation.buf, first_time) < 0)
        goto done;
    if (record_nodes) {
        ids.free_nodes = PyMem_Malloc(machine * sizeof(int32_t));
        ids.offset = PyMem_Malloc((jobs + 1) * sizeof(int64_t));
        if (ids.free_nodes == NULL || ids.offset == NULL) { PyErr_NoMemory(); goto done; }
        ids.offset[0] = 0;
        for (Py_ssize_t job = 0; job < jobs; job++)
            ids.offset[job + 1] = ids.offset[job] + processors[job];
        ids.nodes = PyMem_Malloc((ids.offset[jobs] ? ids.offset[jobs] : 1) * sizeof(int32_t));
        if (ids.nodes == NULL) { PyErr_NoMemory(); goto done; }
        for (int64_t k = 0; k < machine; k++) ids.free_nodes[k] = (int32_t)(machine - 1 - k);
        ids.free_count = machine;
    }
    int64_t peak, events;
    if (run(&planner, b.submit.buf, b.duration.buf, b.start.buf, together,
            record_nodes ? &ids : NULL, on_progress, progress_every, &peak, &events) < 0)
        goto done;
    PyObject *nodes = Py_None;
    Py_INCREF(Py_None);
    if (record_nodes) {
        Py_DECREF(Py_None);
        nodes = node_tuples(ids.nodes, ids.offset, jobs, processors);
        if (nodes == NULL) goto done;
    }
    result = Py_BuildValue("LLLLLN", (long long)peak, (long long)events,
                           (long long)planner.compressions, (long long)planner.profile.scans,
                           (long long)planner.compression_moves, nodes);
done:
    if (planner_ready) planner_free(&planner);
    PyMem_Free(ids.free_nodes);
    PyMem_Free(ids.nodes);
    PyMem_Free(ids.offset);
    Py_buffer *views[] = {&b.submit, &b.processors, &b.estimate, &b.duration, &b.start,
                          &b.first_reservation};
    for (size_t k = 0; k < sizeof views / sizeof views[0]; k++)
        if (views[k]->obj != NULL) PyBuffer_Release(views[k]);
    return result;
}

/* _resource_replay.c */
PyObject *gridsim_replay_resources(PyObject *module, PyObject *args);
extern const char gridsim_replay_resources_doc[];

static PyMethodDef methods[] = {
    {"replay", replay, METH_VARARGS, replay_doc},
    {"replay_resources", gridsim_replay_resources, METH_VARARGS, gridsim_replay_resources_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_replay",
    "Log replays on a processor count or on nodes with resources, compiled "
    "(gridsim.core.replay is the interface).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__replay(void) {
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) return NULL;
    PlanningError = PyErr_NewException("gridsim.core._replay.PlanningError",
                                       PyExc_RuntimeError, NULL);
    if (PlanningError == NULL || PyModule_AddObjectRef(module, "PlanningError", PlanningError) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
