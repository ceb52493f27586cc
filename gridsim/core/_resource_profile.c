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
    profile->allocated = allocated;
    return 0;
}

int resource_profile_init(ResourceProfile *profile, const int64_t *capacity, Py_ssize_t nodes,
                          Py_ssize_t kinds, int exclusive, double now) {
    memset(profile, 0, sizeof(*profile));
    profile->nodes = nodes;
    profile->kinds = kinds;
    profile->totals = nodes * kinds;
    profile->memo = nodes * kinds + kinds;
    profile->mask = profile->memo + 2 + kinds;
    profile->words = (nodes + 63) / 64;
    profile->block = profile->mask + profile->words;
    profile->capacity = capacity;
    profile->exclusive = exclusive;
    profile->allocated = 64;
    profile->times = PyMem_Malloc(64 * sizeof(double));
    profile->steps = PyMem_Malloc(64 * sizeof(int64_t *));
    profile->spare = PyMem_Malloc(64 * sizeof(int64_t *));
    profile->idle_units = PyMem_Malloc((nodes ? nodes : 1) * sizeof(int64_t));
    profile->least = PyMem_Malloc((kinds > 0 ? kinds : 1) * sizeof(int64_t));
    profile->able = PyMem_Malloc(((nodes + 63) / 64) * sizeof(uint64_t));
    profile->change = PyMem_Malloc((nodes + 1) * kinds * sizeof(int64_t));
    if (!profile->times || !profile->steps || !profile->spare || !profile->idle_units ||
        !profile->least || !profile->able || !profile->change) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *block = new_block(profile);
    if (block == NULL) return -1;
    memcpy(block, capacity, nodes * kinds * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < kinds; k++) {
        int64_t total = 0;
        for (Py_ssize_t n = 0; n < nodes; n++) total += capacity[n * kinds + k];
        block[profile->totals + k] = total;
    }
    block[profile->memo] = -1;
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
    PyMem_Free(profile->idle_units);
    PyMem_Free(profile->least);
    PyMem_Free(profile->able);
    PyMem_Free(profile->change);
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
    const int64_t *step = profile->steps[i], *before = profile->steps[i - 1];
    for (Py_ssize_t k = profile->totals; k < profile->memo; k++) /* differing totals: quick */
        if (step[k] != before[k]) return;
    if (memcmp(step, before, profile->totals * sizeof(int64_t)) != 0) return;
    profile->spare[profile->spare_count++] = profile->steps[i];
    Py_ssize_t tail = profile->count - i - 1;
    memmove(profile->times + i, profile->times + i + 1, tail * sizeof(double));
    memmove(profile->steps + i, profile->steps + i + 1, tail * sizeof(int64_t *));
    profile->count--;
}

/* Units of `request` in a node's free amounts `free_` (units_per_node of resources.py). */
static inline int64_t units_in(const int64_t *free_, const Request *request, Py_ssize_t kinds) {
    int64_t held = INT64_MAX, product;
    for (Py_ssize_t k = 0; k < kinds && held > 0; k++) {
        int64_t unit = request->unit[k];
        if (unit <= 0) continue;
        /* divide only when this kind holds fewer units than the kinds before it */
        if (held != INT64_MAX && !__builtin_mul_overflow(held, unit, &product) &&
            free_[k] >= product)
            continue;
        held = unit == 1 ? free_[k] : free_[k] < unit ? 0 : free_[k] / unit;
    }
    return request->one_per_node && held > 1 ? 1 : held;
}

static inline int idle(const int64_t *free_, const int64_t *capacity, Py_ssize_t kinds) {
    for (Py_ssize_t k = 0; k < kinds; k++)
        if (free_[k] != capacity[k]) return 0;
    return 1;
}

/* The units of `request` the node at offset `at` of a step's block holds. */
static inline int64_t node_units(const ResourceProfile *profile, const int64_t *block, Py_ssize_t at,
                          const Request *request) {
    const int64_t *capacity = profile->capacity + at;
    if (!profile->exclusive) return units_in(block + at, request, profile->kinds);
    return idle(block + at, capacity, profile->kinds) ? units_in(capacity, request, profile->kinds)
                                                      : 0;
}

/* The memo's mask: bit n says node n holds at least one unit of the memo's request. */
static inline void set_able(int64_t *mask, Py_ssize_t node, int able) {
    uint64_t bit = (uint64_t)1 << (node % 64), *word = (uint64_t *)mask + node / 64;
    *word = able ? *word | bit : *word & ~bit;
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
    Py_ssize_t kinds = profile->kinds, totals = profile->totals;
    const int64_t *capacity = profile->capacity;
    int64_t *change = profile->change, *sum = change + profile->nodes * kinds;
    for (Py_ssize_t k = 0; k < kinds; k++) sum[k] = 0;
    for (Py_ssize_t a = 0; a < allocation->count; a++) { /* what every step loses */
        Py_ssize_t at = (Py_ssize_t)allocation->node[a] * kinds;
        for (Py_ssize_t k = 0; k < kinds; k++) {
            int64_t demand = profile->exclusive ? capacity[at + k]
                                                : allocation->units[a] * request->unit[k];
            change[a * kinds + k] = -sign * demand;
            sum[k] -= sign * demand;
        }
    }
    for (Py_ssize_t s = i; s < j; s++) {
        int64_t *block = profile->steps[s], *memo = block + profile->memo;
        int remembered = memo[0] >= 0;
        Request asked = {0, memo + 2, (int)memo[1]}; /* the memo's request, kept up to date */
        for (Py_ssize_t a = 0; a < allocation->count; a++) {
            Py_ssize_t at = (Py_ssize_t)allocation->node[a] * kinds;
            int64_t units = remembered ? node_units(profile, block, at, &asked) : 0;
            for (Py_ssize_t k = 0; k < kinds; k++) {
                int64_t left = block[at + k] + change[a * kinds + k];
                if (left < 0 || left > capacity[at + k])
                    return planning_error("%s on node %d over [%.17g, %.17g)",
                                          left < 0 ? "over-committed"
                                                   : "released more than was held",
                                          (int)allocation->node[a], start, end);
                block[at + k] = left;
            }
            if (remembered) {
                int64_t now_units = node_units(profile, block, at, &asked);
                memo[0] += now_units - units;
                set_able(block + profile->mask, allocation->node[a], now_units > 0);
            }
        }
        for (Py_ssize_t k = 0; k < kinds; k++) block[totals + k] += sum[k];
    }
    merge(profile, j);
    merge(profile, i);
    return 0;
}

int64_t resource_profile_units_when_idle(const ResourceProfile *profile,
                                         const Request *request) {
    int64_t total = 0;
    for (Py_ssize_t n = 0; n < profile->nodes; n++)
        total += units_in(profile->capacity + n * profile->kinds, request, profile->kinds);
    return total;
}

/* Per search: the units an idle node holds (exclusive nodes). */
static void begin_search(ResourceProfile *profile, const Request *request) {
    if (!profile->exclusive) return;
    for (Py_ssize_t n = 0; n < profile->nodes; n++)
        profile->idle_units[n] = units_in(profile->capacity + n * profile->kinds, request,
                                          profile->kinds);
}

/* The units of `request` step s holds on all nodes (a row sum of the Python `units`),
 * remembered in the step for the next request of the same unit (add keeps it up to date). */
static int64_t step_units(ResourceProfile *profile, const Request *request, Py_ssize_t s) {
    int64_t *block = profile->steps[s], *memo = block + profile->memo;
    Py_ssize_t nodes = profile->nodes, kinds = profile->kinds;
    int same = memo[0] >= 0 && memo[1] == request->one_per_node;
    for (Py_ssize_t k = 0; k < kinds && same; k++) same = memo[2 + k] == request->unit[k];
    if (same) return memo[0];
    int64_t sum = 0, *mask = block + profile->mask;
    memset(mask, 0, profile->words * sizeof(int64_t));
    for (Py_ssize_t n = 0; n < nodes; n++) {
        int64_t units = node_units(profile, block, n * kinds, request);
        sum += units;
        if (units > 0) set_able(mask, n, 1);
    }
    memo[0] = sum;
    memo[1] = request->one_per_node;
    memcpy(memo + 2, request->unit, kinds * sizeof(int64_t));
    return sum;
}

/* Whether step s holds the request's units at all (the `enough` of the Python search). */
static int is_candidate(ResourceProfile *profile, const Request *request, Py_ssize_t s) {
    const int64_t *totals = profile->steps[s] + profile->totals;
    for (Py_ssize_t k = 0; k < profile->kinds; k++) /* the totals' bound */
        if (request->unit[k] > 0 && totals[k] / request->unit[k] < request->units) return 0;
    return step_units(profile, request, s) >= request->units;
}

int resource_profile_may_start_before(ResourceProfile *profile, double now,
                                      const Request *request, double time) {
    Py_ssize_t first = step_at(profile, now);
    Py_ssize_t stop = bisect_left_d(profile->times, 0, profile->count, time);
    if (stop < first + 1) stop = first + 1;
    begin_search(profile, request);
    for (Py_ssize_t s = first; s < stop; s++)
        if (is_candidate(profile, request, s)) return 1;
    return 0;
}

/* First fit over steps [s, covered), every one a candidate (so their memos and masks are for
 * this request): the units nodes 0, 1, ... hold over all those steps, into `found` until
 * they add up to the request's units; their sum. Only nodes able to hold a unit at every
 * step (the masks' intersection) are looked at. */
static int64_t first_fit(ResourceProfile *profile, const Request *request, Py_ssize_t s,
                         Py_ssize_t covered, Allocation *found) {
    Py_ssize_t kinds = profile->kinds, words = profile->words;
    uint64_t *able = profile->able;
    memcpy(able, profile->steps[s] + profile->mask, words * sizeof(uint64_t));
    for (Py_ssize_t t = s + 1; t < covered; t++) {
        const uint64_t *mask = (const uint64_t *)(profile->steps[t] + profile->mask);
        for (Py_ssize_t w = 0; w < words; w++) able[w] &= mask[w];
    }
    int64_t sum = 0, *least = profile->least;
    Py_ssize_t pairs = 0;
    for (Py_ssize_t w = 0; w < words && sum < request->units; w++) {
        for (uint64_t bits = able[w]; bits != 0 && sum < request->units; bits &= bits - 1) {
            Py_ssize_t n = w * 64 + __builtin_ctzll(bits), at = n * kinds;
            int64_t held;
            if (profile->exclusive)
                held = profile->idle_units[n]; /* idle at every step */
            else if (request->one_per_node)
                held = 1;
            else {
                for (Py_ssize_t k = 0; k < kinds; k++) least[k] = profile->steps[s][at + k];
                for (Py_ssize_t t = s + 1; t < covered; t++)
                    for (Py_ssize_t k = 0; k < kinds; k++)
                        if (profile->steps[t][at + k] < least[k])
                            least[k] = profile->steps[t][at + k];
                held = units_in(least, request, kinds);
            }
            int64_t take = held < request->units - sum ? held : request->units - sum;
            found->node[pairs] = (int32_t)n;
            found->units[pairs++] = take;
            sum += take;
        }
    }
    found->count = pairs;
    return sum;
}

double resource_profile_earliest_fit(ResourceProfile *profile, double now,
                                     const Request *request, double duration, double before,
                                     Allocation *found) {
    const double *times = profile->times;
    Py_ssize_t count = profile->count;
    Py_ssize_t s = step_at(profile, now);
    begin_search(profile, request);
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
        if (first_fit(profile, request, s, covered, found) >= request->units) return start;
        s++;
    }
    return NAN;
}
