/* The processor-count step profile in C; the reference, with the reasons for every step, is
 * gridsim/scheduling/counting_profile.py. Comments here only say where the C differs. */
#include "_profile.h"
#include "_bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Py_ssize_t bisect_left_i(const int64_t *a, Py_ssize_t lo, Py_ssize_t hi, int64_t x) {
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int grow(Profile *profile) {
    Py_ssize_t capacity = profile->capacity * 2;
    double *times = PyMem_Realloc(profile->times, capacity * sizeof(double));
    if (times == NULL) { PyErr_NoMemory(); return -1; }
    profile->times = times;
    int64_t *free_ = PyMem_Realloc(profile->free, capacity * sizeof(int64_t));
    if (free_ == NULL) { PyErr_NoMemory(); return -1; }
    profile->free = free_;
    int64_t *most = PyMem_Realloc(profile->most_free, capacity * sizeof(int64_t));
    if (most == NULL) { PyErr_NoMemory(); return -1; }
    profile->most_free = most;
    profile->capacity = capacity;
    return 0;
}

static int insert_step(Profile *profile, Py_ssize_t i, double time, int64_t free_) {
    if (profile->count == profile->capacity && grow(profile) < 0) return -1;
    Py_ssize_t tail = profile->count - i;
    memmove(profile->times + i + 1, profile->times + i, tail * sizeof(double));
    memmove(profile->free + i + 1, profile->free + i, tail * sizeof(int64_t));
    profile->times[i] = time;
    profile->free[i] = free_;
    profile->count++;
    return 0;
}

static void delete_step(Profile *profile, Py_ssize_t i) {
    Py_ssize_t tail = profile->count - i - 1;
    memmove(profile->times + i, profile->times + i + 1, tail * sizeof(double));
    memmove(profile->free + i, profile->free + i + 1, tail * sizeof(int64_t));
    profile->count--;
}

int profile_init(Profile *profile, int64_t processors, double now) {
    memset(profile, 0, sizeof(*profile));
    profile->capacity = 64;
    profile->times = PyMem_Malloc(64 * sizeof(double));
    profile->free = PyMem_Malloc(64 * sizeof(int64_t));
    profile->most_free = PyMem_Malloc(64 * sizeof(int64_t));
    if (!profile->times || !profile->free || !profile->most_free) {
        PyErr_NoMemory();
        return -1;
    }
    profile->times[0] = now;
    profile->free[0] = processors;
    profile->count = 1;
    profile->processors = processors;
    return 0;
}

void profile_free(Profile *profile) {
    PyMem_Free(profile->times);
    PyMem_Free(profile->free);
    PyMem_Free(profile->most_free);
    profile->times = NULL;
    profile->free = profile->most_free = NULL;
}

static Py_ssize_t step_at(const Profile *profile, double time) {
    if (profile->count < 2 || profile->times[1] > time) return 0;
    return bisect_right_d(profile->times, 0, profile->count, time) - 1;
}

void profile_forget_before(Profile *profile, double now) {
    Py_ssize_t i = step_at(profile, now);
    if (i > 0) {
        profile->count -= i;
        memmove(profile->times, profile->times + i, profile->count * sizeof(double));
        memmove(profile->free, profile->free + i, profile->count * sizeof(int64_t));
        profile->valid = 0;
    }
    if (profile->times[0] < now) profile->times[0] = now;
}

static int overcommitted(int64_t processors, double start, double end, int released) {
    char message[160];
    if (released)
        snprintf(message, sizeof message, "released more than was held on [%.17g, %.17g)",
                 start, end);
    else
        snprintf(message, sizeof message, "over-committed: %lld processors on [%.17g, %.17g)",
                 (long long)processors, start, end);
    PyErr_SetString(gridsim_planning_error, message);
    return -1;
}

int profile_add(Profile *profile, double start, double end, int64_t processors) {
    if (end <= start) return 0;
    double *times = profile->times;
    int64_t *free_ = profile->free;
    Py_ssize_t count = profile->count;
    if (start < times[0]) {
        PyErr_SetString(gridsim_planning_error, "a range starts before the profile");
        return -1;
    }
    Py_ssize_t i = bisect_right_d(times, 0, count, start) - 1;
    if (i + 1 == count || times[i + 1] >= end) {
        int64_t left = free_[i] - processors;
        if (left < 0) return overcommitted(processors, start, end, 0);
        if (left > profile->processors) return overcommitted(processors, start, end, 1);
        int ends_step = i + 1 < count && times[i + 1] == end;
        if (times[i] < start && ends_step && free_[i + 1] == left) {
            times[i + 1] = start;
            return 0;
        }
        int joins_previous = i > 0 && free_[i - 1] == left && end != INFINITY;
        if (times[i] == start && !ends_step && joins_previous) {
            times[i] = end;
            return 0;
        }
    }
    if (times[i] != start) {
        i++;
        if (insert_step(profile, i, start, profile->free[i - 1]) < 0) return -1;
    }
    Py_ssize_t j;
    if (end == INFINITY) {
        j = profile->count;
    } else {
        j = bisect_left_d(profile->times, i, profile->count, end);
        if (j == profile->count || profile->times[j] != end) {
            if (insert_step(profile, j, end, profile->free[j - 1]) < 0) return -1;
        }
    }
    free_ = profile->free;
    for (Py_ssize_t k = i; k < j; k++) {
        int64_t left = free_[k] - processors;
        if (left < 0) return overcommitted(processors, start, end, 0);
        if (left > profile->processors) return overcommitted(processors, start, end, 1);
    }
    for (Py_ssize_t k = i; k < j; k++) free_[k] -= processors;
    if (j < profile->count && free_[j] == free_[j - 1]) delete_step(profile, j);
    if (i > 0 && free_[i] == free_[i - 1]) delete_step(profile, i);
    if (i < profile->valid) profile->valid = i;
    return 0;
}

int profile_move(Profile *profile, double reserved, double start, double duration,
                 int64_t processors) {
    if (start + duration <= reserved) {
        if (profile_add(profile, reserved, reserved + duration, -processors) < 0) return -1;
        return profile_add(profile, start, start + duration, processors);
    }
    if (profile_add(profile, start, reserved, processors) < 0) return -1;
    return profile_add(profile, start + duration, reserved + duration, -processors);
}

/* NAN where the Python returns None. */
double profile_earliest_fit(const Profile *profile, double now, int64_t processors,
                            double duration) {
    const double *times = profile->times;
    const int64_t *free_ = profile->free;
    Py_ssize_t count = profile->count;
    Py_ssize_t i = step_at(profile, now);
    for (;;) {
        while (i < count && free_[i] < processors) i++;
        if (i == count) return NAN;
        double start = times[i] > now ? times[i] : now;
        i++;
        while (i < count && free_[i] >= processors) i++;
        if (i == count || times[i] - start >= duration) return start;
    }
}

/* --- compress's (processors, duration) -> T map: open addressing over its entries --- */

static uint64_t key_hash(int64_t processors, double duration) {
    uint64_t bits;
    if (duration == 0.0) duration = 0.0; /* -0.0 and 0.0 are one key, as in a dict */
    memcpy(&bits, &duration, sizeof bits);
    uint64_t h = (uint64_t)processors * 0x9E3779B97F4A7C15ull ^ bits;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static int too_short_reserve(TooShort *map, Py_ssize_t length) {
    Py_ssize_t size = 16;
    while (size < 2 * length + 2) size *= 2;
    if (size > map->table_size) {
        PyMem_Free(map->table);
        map->table = PyMem_Calloc(size, sizeof(Py_ssize_t));
        if (map->table == NULL) { PyErr_NoMemory(); return -1; }
        map->table_size = size;
    }
    if (length > map->capacity) {
        Py_ssize_t capacity = length;
        map->processors = PyMem_Realloc(map->processors, capacity * sizeof(int64_t));
        map->duration = PyMem_Realloc(map->duration, capacity * sizeof(double));
        map->until = PyMem_Realloc(map->until, capacity * sizeof(double));
        map->live = PyMem_Realloc(map->live, capacity);
        map->slot = PyMem_Realloc(map->slot, capacity * sizeof(Py_ssize_t));
        if (!map->processors || !map->duration || !map->until || !map->live || !map->slot) {
            PyErr_NoMemory();
            return -1;
        }
        map->capacity = capacity;
    }
    map->count = 0;
    return 0;
}

/* The entry of the key, or -1; *slot is where it is or would go. */
static Py_ssize_t too_short_find(const TooShort *map, int64_t processors, double duration,
                                 Py_ssize_t *slot) {
    Py_ssize_t mask = map->table_size - 1;
    Py_ssize_t s = (Py_ssize_t)(key_hash(processors, duration) & (uint64_t)mask);
    for (;;) {
        Py_ssize_t entry = map->table[s] - 1;
        if (entry < 0) { *slot = s; return -1; }
        if (map->processors[entry] == processors && map->duration[entry] == duration) {
            *slot = s;
            return entry;
        }
        s = (s + 1) & mask;
    }
}

static void too_short_clear(TooShort *map) {
    for (Py_ssize_t k = 0; k < map->count; k++) map->table[map->slot[k]] = 0;
    map->count = 0;
}

void too_short_free(TooShort *map) {
    PyMem_Free(map->processors);
    PyMem_Free(map->duration);
    PyMem_Free(map->until);
    PyMem_Free(map->live);
    PyMem_Free(map->slot);
    PyMem_Free(map->table);
    memset(map, 0, sizeof(*map));
}

int profile_compress(Profile *profile, TooShort *too_short, double now, const int64_t *queue,
                     Py_ssize_t length, double *reserved_at, const int64_t *processors,
                     const double *duration, int64_t *moves, Py_ssize_t *moved_count) {
    Py_ssize_t moved = 0;
    if (too_short_reserve(too_short, length) < 0) return -1;
    for (Py_ssize_t q = 0; q < length; q++) {
        int64_t job = queue[q];
        double reserved = reserved_at[job];
        if (reserved <= now) continue;
        int64_t p = processors[job];
        double *times = profile->times;
        int64_t *free_ = profile->free, *most_free = profile->most_free;
        Py_ssize_t stop = bisect_left_d(times, 0, profile->count, reserved);
        double latest;
        Py_ssize_t need;
        if (free_[stop - 1] >= p) {
            latest = reserved;
            need = stop;
        } else {
            latest = reserved - duration[job];
            need = bisect_right_d(times, 0, profile->count, latest);
            if (need == 0) continue;
        }
        Py_ssize_t valid = profile->valid;
        if (need > valid) {
            int64_t best = valid ? most_free[valid - 1] : 0;
            for (Py_ssize_t k = valid; k < need; k++) {
                if (free_[k] > best) best = free_[k];
                most_free[k] = best;
            }
            profile->valid = need;
        }
        if (most_free[need - 1] < p) continue;
        profile->scans++;
        double e = duration[job];
        Py_ssize_t i = bisect_left_i(most_free, 0, need, p);
        Py_ssize_t slot;
        Py_ssize_t entry = too_short_find(too_short, p, e, &slot);
        int has_known = entry >= 0 && too_short->live[entry];
        double known = has_known ? too_short->until[entry] : 0.0;
        if (has_known && known < reserved) {
            Py_ssize_t after = bisect_right_d(times, 0, profile->count, known) - 1;
            if (after > i) i = after;
        }
        int has_last_end = 0;
        double last_end = 0.0;
        for (;;) {
            while (i < stop && free_[i] < p) i++;
            if (i == stop) break;
            double run_start = times[i];
            if (run_start > latest) break;
            double start = run_start > now ? run_start : now;
            i++;
            while (i < stop && free_[i] >= p) i++;
            if (i == stop || times[i] - start >= e) {
                if (profile_move(profile, reserved, start, e, p) < 0) return -1;
                reserved_at[job] = start;
                moves[moved++] = job;
                double released = start + e > reserved ? start + e : reserved;
                for (Py_ssize_t k = 0; k < too_short->count; k++) {
                    if (too_short->live[k] && too_short->until[k] >= released)
                        too_short->live[k] = 0;
                }
                break;
            }
            has_last_end = 1;
            last_end = times[i];
        }
        if (has_last_end && (!has_known || last_end > known)) {
            if (entry < 0) {
                entry = too_short->count++;
                too_short->processors[entry] = p;
                too_short->duration[entry] = e;
                too_short->slot[entry] = slot;
                too_short->table[slot] = entry + 1;
            }
            too_short->until[entry] = last_end;
            too_short->live[entry] = 1;
        }
    }
    too_short_clear(too_short);
    *moved_count = moved;
    return 0;
}
