/* The multi-resource profile in C; the reference, with the reasons for every step, is
 * gridsim/scheduling/resource_profile.py. Comments here only say where the C differs. */
#include "_resource_profile.h"
#include "_bisect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A broken invariant: PlanningError with a printf-style message (doubles in full). */
static int planning_error(const char *format, ...) {
    char message[200];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    PyErr_SetString(gridsim_planning_error, message);
    return -1;
}

static int64_t *new_block(ResourceProfile *profile) {
    if (profile->spare_count > 0) return profile->spare[--profile->spare_count];
    int64_t *block = PyMem_Malloc(profile->block * sizeof(int64_t));
    if (block == NULL) PyErr_NoMemory();
    return block;
}

static int grow(ResourceProfile *profile) {
    Py_ssize_t allocated = profile->allocated * 2;
    double *times = PyMem_Realloc(profile->times, allocated * sizeof(double));
    if (times == NULL) { PyErr_NoMemory(); return -1; }
    profile->times = times;
    int64_t **steps = PyMem_Realloc(profile->steps, allocated * sizeof(int64_t *));
    if (steps == NULL) { PyErr_NoMemory(); return -1; }
    profile->steps = steps;
    int64_t **spare = PyMem_Realloc(profile->spare, allocated * sizeof(int64_t *));
    if (spare == NULL) { PyErr_NoMemory(); return -1; }
    profile->spare = spare;
    signed char *candidate = PyMem_Realloc(profile->candidate, allocated);
    if (candidate == NULL) { PyErr_NoMemory(); return -1; }
    profile->candidate = candidate;
    profile->allocated = allocated;
    return 0;
}

int resource_profile_init(ResourceProfile *profile, const int64_t *capacity, Py_ssize_t nodes,
                          Py_ssize_t kinds, int exclusive, double now) {
    memset(profile, 0, sizeof(*profile));
    profile->nodes = nodes;
    profile->kinds = kinds;
    profile->block = nodes * kinds + kinds;
    profile->capacity = capacity;
    profile->exclusive = exclusive;
    profile->allocated = 64;
    profile->times = PyMem_Malloc(64 * sizeof(double));
    profile->steps = PyMem_Malloc(64 * sizeof(int64_t *));
    profile->spare = PyMem_Malloc(64 * sizeof(int64_t *));
    profile->candidate = PyMem_Malloc(64);
    profile->idle_units = PyMem_Malloc((nodes ? nodes : 1) * sizeof(int64_t));
    profile->least = PyMem_Malloc((nodes > 0 && kinds > 0 ? nodes * kinds : 1) * sizeof(int64_t));
    if (!profile->times || !profile->steps || !profile->spare || !profile->candidate ||
        !profile->idle_units || !profile->least) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *block = new_block(profile);
    if (block == NULL) return -1;
    memcpy(block, capacity, nodes * kinds * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < kinds; k++) {
        int64_t total = 0;
        for (Py_ssize_t n = 0; n < nodes; n++) total += capacity[n * kinds + k];
        block[nodes * kinds + k] = total;
    }
    profile->times[0] = now;
    profile->steps[0] = block;
    profile->count = 1;
    return 0;
}

void resource_profile_free(ResourceProfile *profile) {
    for (Py_ssize_t i = 0; i < profile->count; i++) PyMem_Free(profile->steps[i]);
    for (Py_ssize_t i = 0; i < profile->spare_count; i++) PyMem_Free(profile->spare[i]);
    PyMem_Free(profile->times);
    PyMem_Free(profile->steps);
    PyMem_Free(profile->spare);
    PyMem_Free(profile->candidate);
    PyMem_Free(profile->idle_units);
    PyMem_Free(profile->least);
}

static Py_ssize_t step_at(const ResourceProfile *profile, double time) {
    Py_ssize_t i = bisect_right_d(profile->times, 0, profile->count, time) - 1;
    return i > 0 ? i : 0;
}

/* Blocks leave the profile only here and in merge, into the spare list (as long as steps). */
void resource_profile_forget_before(ResourceProfile *profile, double now) {
    Py_ssize_t i = step_at(profile, now);
    if (i > 0) {
        memcpy(profile->spare + profile->spare_count, profile->steps, i * sizeof(int64_t *));
        profile->spare_count += i;
        profile->count -= i;
        memmove(profile->times, profile->times + i, profile->count * sizeof(double));
        memmove(profile->steps, profile->steps + i, profile->count * sizeof(int64_t *));
    }
    if (now > profile->times[0]) profile->times[0] = now;
}

static Py_ssize_t split(ResourceProfile *profile, double time) {
    Py_ssize_t i = bisect_left_d(profile->times, 0, profile->count, time);
    if (i < profile->count && profile->times[i] == time) return i;
    if (profile->count == profile->allocated && grow(profile) < 0) return -1;
    int64_t *block = new_block(profile);
    if (block == NULL) return -1;
    memcpy(block, profile->steps[i - 1], profile->block * sizeof(int64_t));
    Py_ssize_t tail = profile->count - i;
    memmove(profile->times + i + 1, profile->times + i, tail * sizeof(double));
    memmove(profile->steps + i + 1, profile->steps + i, tail * sizeof(int64_t *));
    profile->times[i] = time;
    profile->steps[i] = block;
    profile->count++;
    return i;
}

static void merge(ResourceProfile *profile, Py_ssize_t i) {
    if (i <= 0 || i >= profile->count) return;
    Py_ssize_t amounts = profile->nodes * profile->kinds;
    if (memcmp(profile->steps[i], profile->steps[i - 1], amounts * sizeof(int64_t)) != 0) return;
    profile->spare[profile->spare_count++] = profile->steps[i];
    Py_ssize_t tail = profile->count - i - 1;
    memmove(profile->times + i, profile->times + i + 1, tail * sizeof(double));
    memmove(profile->steps + i, profile->steps + i + 1, tail * sizeof(int64_t *));
    profile->count--;
}

int resource_profile_add(ResourceProfile *profile, double start, double end,
                         const Allocation *allocation, const Request *request, int sign) {
    if (end <= start) return 0;
    if (start < profile->times[0]) {
        return planning_error("a reservation over [%.17g, %.17g) starts before the profile "
                              "(%.17g)", start, end, profile->times[0]);
    }
    Py_ssize_t i = split(profile, start);
    if (i < 0) return -1;
    Py_ssize_t j = end == INFINITY ? profile->count : split(profile, end);
    if (j < 0) return -1;
    Py_ssize_t kinds = profile->kinds, totals = profile->nodes * kinds;
    const int64_t *capacity = profile->capacity;
    for (Py_ssize_t s = i; s < j; s++) {
        int64_t *block = profile->steps[s];
        for (Py_ssize_t a = 0; a < allocation->count; a++) {
            Py_ssize_t at = (Py_ssize_t)allocation->node[a] * kinds;
            for (Py_ssize_t k = 0; k < kinds; k++) {
                int64_t demand = profile->exclusive ? capacity[at + k]
                                                    : allocation->units[a] * request->unit[k];
                int64_t left = block[at + k] - sign * demand;
                if (left < 0 || left > capacity[at + k]) {
                    return planning_error("%s on node %d over [%.17g, %.17g)",
                                          left < 0 ? "over-committed"
                                                   : "released more than was held",
                                          (int)allocation->node[a], start, end);
                }
                block[at + k] = left;
                block[totals + k] -= sign * demand;
            }
        }
    }
    merge(profile, j);
    merge(profile, i);
    return 0;
}

/* Units of `request` in a node's free amounts `free_` (units_per_node of resources.py). */
static int64_t units_in(const int64_t *free_, const Request *request, Py_ssize_t kinds) {
    int64_t held = INT64_MAX;
    for (Py_ssize_t k = 0; k < kinds; k++) {
        int64_t unit = request->unit[k];
        if (unit > 0) {
            int64_t fits = unit == 1 ? free_[k] : free_[k] / unit;
            if (fits < held) held = fits;
        }
    }
    return request->one_per_node && held > 1 ? 1 : held;
}

int64_t resource_profile_units_when_idle(const ResourceProfile *profile,
                                         const Request *request) {
    int64_t total = 0;
    for (Py_ssize_t n = 0; n < profile->nodes; n++)
        total += units_in(profile->capacity + n * profile->kinds, request, profile->kinds);
    return total;
}

/* Per search: reset what is known of the steps, and the units an idle node holds. */
static void begin_search(ResourceProfile *profile, const Request *request, Py_ssize_t first) {
    memset(profile->candidate + first, -1, profile->count - first);
    if (!profile->exclusive) return;
    for (Py_ssize_t n = 0; n < profile->nodes; n++)
        profile->idle_units[n] = units_in(profile->capacity + n * profile->kinds, request,
                                          profile->kinds);
}

static int idle(const int64_t *free_, const int64_t *capacity, Py_ssize_t kinds) {
    for (Py_ssize_t k = 0; k < kinds; k++)
        if (free_[k] != capacity[k]) return 0;
    return 1;
}

/* Whether step s holds the request's units at all (the `enough` of the Python search). */
static int is_candidate(ResourceProfile *profile, const Request *request, Py_ssize_t s) {
    signed char known = profile->candidate[s];
    if (known >= 0) return known;
    const int64_t *block = profile->steps[s];
    Py_ssize_t nodes = profile->nodes, kinds = profile->kinds;
    int64_t units = request->units, sum = 0;
    int enough = 1;
    for (Py_ssize_t k = 0; k < kinds && enough; k++) /* the totals' bound */
        if (request->unit[k] > 0 && block[nodes * kinds + k] / request->unit[k] < units)
            enough = 0;
    if (enough) {
        enough = 0;
        for (Py_ssize_t n = 0; n < nodes && !enough; n++) {
            const int64_t *free_ = block + n * kinds;
            if (profile->exclusive)
                sum += idle(free_, profile->capacity + n * kinds, kinds) ? profile->idle_units[n]
                                                                          : 0;
            else
                sum += units_in(free_, request, kinds);
            enough = sum >= units;
        }
    }
    profile->candidate[s] = (signed char)enough;
    return enough;
}

int resource_profile_may_start_before(ResourceProfile *profile, double now,
                                      const Request *request, double time) {
    Py_ssize_t first = step_at(profile, now);
    Py_ssize_t stop = bisect_left_d(profile->times, 0, profile->count, time);
    if (stop < first + 1) stop = first + 1;
    begin_search(profile, request, first);
    for (Py_ssize_t s = first; s < stop; s++)
        if (is_candidate(profile, request, s)) return 1;
    return 0;
}

/* The units every node holds over steps [s, covered), into held; their sum. */
static int64_t held_over(ResourceProfile *profile, const Request *request, Py_ssize_t s,
                         Py_ssize_t covered, int64_t *held) {
    Py_ssize_t nodes = profile->nodes, kinds = profile->kinds, amounts = nodes * kinds;
    int64_t *least = profile->least;
    memcpy(least, profile->steps[s], amounts * sizeof(int64_t));
    for (Py_ssize_t t = s + 1; t < covered; t++) {
        const int64_t *block = profile->steps[t];
        for (Py_ssize_t a = 0; a < amounts; a++)
            if (block[a] < least[a]) least[a] = block[a];
    }
    int64_t sum = 0;
    for (Py_ssize_t n = 0; n < nodes; n++) {
        if (profile->exclusive)
            held[n] = idle(least + n * kinds, profile->capacity + n * kinds, kinds)
                          ? profile->idle_units[n] : 0;
        else
            held[n] = units_in(least + n * kinds, request, kinds);
        sum += held[n];
    }
    return sum;
}

double resource_profile_earliest_fit(ResourceProfile *profile, double now,
                                     const Request *request, double duration, double before,
                                     Allocation *found) {
    const double *times = profile->times;
    Py_ssize_t count = profile->count;
    Py_ssize_t s = step_at(profile, now);
    begin_search(profile, request, s);
    int64_t *held = found->units; /* room for every node */
    while (s < count) {
        if (!is_candidate(profile, request, s)) { s++; continue; }
        double start = now > times[s] ? now : times[s];
        if (start >= before) return NAN;
        Py_ssize_t covered = bisect_left_d(times, s + 1, count, start + duration);
        /* A step the start covers that is no candidate fails this start and every later one
         * up to that step (they cover it too): go on after it. */
        Py_ssize_t short_step = -1;
        for (Py_ssize_t t = s + 1; t < covered && short_step < 0; t++)
            if (!is_candidate(profile, request, t)) short_step = t;
        if (short_step >= 0) { s = short_step + 1; continue; }
        if (held_over(profile, request, s, covered, held) >= request->units) {
            int64_t remaining = request->units;
            Py_ssize_t pairs = 0;
            for (Py_ssize_t n = 0; remaining > 0; n++) {
                if (held[n] == 0) continue;
                int64_t take = held[n] < remaining ? held[n] : remaining;
                found->node[pairs] = (int32_t)n;
                found->units[pairs++] = take; /* pairs <= n: held[n] is already read */
                remaining -= take;
            }
            found->count = pairs;
            return start;
        }
        s++;
    }
    return NAN;
}
