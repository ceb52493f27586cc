/* Python's bisect_left and bisect_right on sorted doubles, for the profiles' breakpoints. */
#ifndef GRIDSIM_CORE_BISECT_H
#define GRIDSIM_CORE_BISECT_H

#include <Python.h>

/* First index of a[lo, hi) with a[i] >= x (Python's bisect_left). */
static inline Py_ssize_t bisect_left_d(const double *a, Py_ssize_t lo, Py_ssize_t hi, double x) {
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* First index of a[lo, hi) with a[i] > x (Python's bisect_right). */
static inline Py_ssize_t bisect_right_d(const double *a, Py_ssize_t lo, Py_ssize_t hi, double x) {
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (x < a[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

#endif
