/* The processor-count step profile: gridsim/scheduling/counting_profile.py in C.
 *
 * Same data (sorted breakpoint times, the free count on [times[i], times[i+1]), equal
 * neighbours merged, a running maximum valid for its first `valid` entries), same operations
 * and the same float expressions, so every answer is the same double as the Python one.
 * Functions return 0, or -1 with a Python exception set.
 */
#ifndef GRIDSIM_CORE_PROFILE_H
#define GRIDSIM_CORE_PROFILE_H

#include <Python.h>
#include <stdint.h>

typedef struct {
    double *times;
    int64_t *free;
    int64_t *most_free; /* running maximum of free, valid for its first `valid` entries */
    Py_ssize_t count, capacity, valid;
    int64_t processors;
    int64_t scans; /* searches made by compress */
} Profile;

/* (processors, duration) -> T of compress's shortcut, with its entries in insertion order. */
typedef struct {
    int64_t *processors;
    double *duration, *until;
    char *live;
    Py_ssize_t *slot;   /* the entry's slot in the hash table */
    Py_ssize_t count, capacity;
    Py_ssize_t *table;  /* entry index + 1, 0 for an empty slot */
    Py_ssize_t table_size;
} TooShort;

/* The exception a broken invariant raises (a planning bug, never a user error). */
extern PyObject *gridsim_planning_error;

int profile_init(Profile *profile, int64_t processors, double now);
void profile_free(Profile *profile);
void profile_forget_before(Profile *profile, double now);
int profile_add(Profile *profile, double start, double end, int64_t processors);
int profile_move(Profile *profile, double reserved, double start, double duration,
                 int64_t processors);
double profile_earliest_fit(const Profile *profile, double now, int64_t processors,
                            double duration);

/* One compression pass over the queued jobs `queue[0..length)` (priority order) holding
 * `reserved[job]`; every move sets reserved[job] and is reported through moved(job). */
int profile_compress(Profile *profile, TooShort *too_short, double now, const int64_t *queue,
                     Py_ssize_t length, double *reserved, const int64_t *processors,
                     const double *duration, int64_t *moves, Py_ssize_t *moved_count);

void too_short_free(TooShort *too_short);

#endif
