/* The multi-resource profile: gridsim/scheduling/resource_profile.py in C.
 *
 * Same data (breakpoint times; per step the free amount of every node and kind, equal
 * neighbours merged), same operations, same answers: every start is the same double and every
 * allocation the same nodes and units as the Python one. The number of kinds is a parameter.
 *
 * Layout: one block of int64 per step: `nodes x kinds` free amounts, `kinds` totals over the
 * nodes, and a memo (the units of the last request unit asked about, -1 when unknown; then
 * one_per_node and the unit). Steps are an array of block pointers, so inserting a
 * breakpoint moves pointers and copies one block, not the whole profile. The totals bound a
 * step's units from above (the sum of floors is at most the floor of the sum), which rules
 * most steps out of a search without looking at a node; the memo answers the next request of
 * the same unit (most logs have few distinct units) until the step changes. Functions return 0, or -1 with a Python exception.
 */
#ifndef GRIDSIM_CORE_RESOURCE_PROFILE_H
#define GRIDSIM_CORE_RESOURCE_PROFILE_H

#include <Python.h>
#include <stdint.h>

/* The exception a broken invariant raises (defined in _replay.c). */
extern PyObject *gridsim_planning_error;

/* What a job asks for: `units` units of `unit` (one amount per kind). */
typedef struct {
    int64_t units;
    const int64_t *unit;
    int one_per_node;
} Request;

/* Where a job's units are: `count` (node, units) pairs in node order. */
typedef struct {
    int32_t *node;
    int64_t *units;
    Py_ssize_t count;
} Allocation;

typedef struct {
    Py_ssize_t nodes, kinds;
    Py_ssize_t totals, memo, mask, block; /* offsets in a step's block; the block's size */
    Py_ssize_t words;                     /* of a mask: one bit per node */
    const int64_t *capacity;        /* nodes x kinds */
    int exclusive;
    double *times;
    int64_t **steps;
    Py_ssize_t count, allocated;
    int64_t **spare; /* blocks of merged or forgotten steps, for reuse */
    Py_ssize_t spare_count;
    /* scratch of the searches */
    int64_t *idle_units; /* units of the current request an idle node holds */
    int64_t *least;      /* kinds: a node's smallest free amounts over the steps covered */
    int64_t *change; /* (nodes + 1) x kinds: an add's change per node of an allocation, total */
    uint64_t *able;      /* the nodes holding a unit at every step covered (a mask) */
} ResourceProfile;

int resource_profile_init(ResourceProfile *profile, const int64_t *capacity, Py_ssize_t nodes,
                          Py_ssize_t kinds, int exclusive, double now);
void resource_profile_free(ResourceProfile *profile);
void resource_profile_forget_before(ResourceProfile *profile, double now);
/* Hold (sign 1) or release (sign -1) an allocation over [start, end). */
int resource_profile_add(ResourceProfile *profile, double start, double end,
                         const Allocation *allocation, const Request *request, int sign);
int resource_profile_may_start_before(ResourceProfile *profile, double now,
                                      const Request *request, double time);
/* The earliest start in [now, before) and its allocation (into `found`, room for every
 * node), or NaN if there is none. */
double resource_profile_earliest_fit(ResourceProfile *profile, double now,
                                     const Request *request, double duration, double before,
                                     Allocation *found);
/* The units of `request` the nodes hold when all are idle. */
int64_t resource_profile_units_when_idle(const ResourceProfile *profile,
                                         const Request *request);

#endif
