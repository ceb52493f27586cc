/* The FCFS, EASY and conservative planners on nodes with cores, memory and GPUs, and the
 * replay loop that drives them: gridsim/scheduling/resource_schedulers.py and the loop of
 * gridsim/sim/log_replay.py in C (_resource_planners.c). Functions return 0, or -1 with a
 * Python exception set.
 */
#ifndef GRIDSIM_CORE_RESOURCE_PLANNERS_H
#define GRIDSIM_CORE_RESOURCE_PLANNERS_H

#include <Python.h>
#include <stdint.h>

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

int planner_init(Planner *planner, int algorithm, const int64_t *capacity, Py_ssize_t nodes,
                 Py_ssize_t kinds, int exclusive, Py_ssize_t jobs, Requests requests,
                 const double *estimate, double *first_reservation, double now);
void planner_free(Planner *planner);
/* Replay the jobs (priority order): fills start (and first_reservation), the peak of cores
 * in use and the instants processed. */
int planner_run(Planner *planner, const double *submit, const double *duration, double *start,
                int64_t machine, PyObject *on_progress, Py_ssize_t progress_every,
                int64_t *peak_out, int64_t *events_out);

#endif
