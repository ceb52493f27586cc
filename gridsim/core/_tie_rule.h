/* The tie rule of the compiled search: gridsim/selection/ties.py is the reference (its
 * constants, the rank of a window, and Contenders without the skipping, which the search in
 * _window.c does itself). */
#ifndef GRIDSIM_CORE_TIE_RULE_H
#define GRIDSIM_CORE_TIE_RULE_H

#include <Python.h>

#include <math.h>
#include <stdint.h>

/* ties.py: TIE_TOLERANCE and BOUND_SLACK. */
#define TIE_TOLERANCE 1e-12
#define BOUND_SLACK (TIE_TOLERANCE / 5)

static inline double tie_floor(double value) {
    return isfinite(value) ? value - TIE_TOLERANCE * (fabs(value) + 1.0) : value;
}

static inline double tie_ceiling(double value) {
    return value + TIE_TOLERANCE * (fabs(value) + 1.0);
}

/* A window found: its value and rank (Choice.rank without the secondary value, which is 0). */
typedef struct {
    double value, performance, start;
    int64_t sigma, step;
} Found;

/* Whether a's rank is above b's: the faster slowest node, the earlier start, the slowest slot
 * listed first, the earlier step. */
static inline int ranks_above(const Found *a, const Found *b) {
    if (a->performance != b->performance) return a->performance > b->performance;
    if (a->start != b->start) return a->start < b->start;
    if (a->sigma != b->sigma) return a->sigma < b->sigma;
    return a->step < b->step;
}

/* ties.Contenders without the skipping: the windows the rule may still choose. */
typedef struct {
    Found *choices;
    Py_ssize_t held, room;
    double top, floor;
} Contenders;

static inline int offer(Contenders *c, Found window) {
    if (window.value > c->top) {
        c->top = window.value;
        c->floor = tie_floor(window.value);
        Py_ssize_t kept = 0;
        for (Py_ssize_t k = 0; k < c->held; k++)
            if (c->choices[k].value >= c->floor) c->choices[kept++] = c->choices[k];
        c->held = kept;
    } else if (!(window.value >= c->floor)) {
        return 0;
    }
    for (Py_ssize_t k = 0; k < c->held; k++)
        if (c->choices[k].value >= window.value && !ranks_above(&window, &c->choices[k]))
            return 0; /* ruled out (an equal rank is the same window) */
    Py_ssize_t kept = 0;
    for (Py_ssize_t k = 0; k < c->held; k++)
        if (!(window.value >= c->choices[k].value && ranks_above(&window, &c->choices[k])))
            c->choices[kept++] = c->choices[k];
    c->held = kept;
    if (c->held == c->room) {
        Py_ssize_t room = 2 * c->room;
        Found *grown = PyMem_Realloc(c->choices, (size_t)room * sizeof(Found));
        if (grown == NULL) return -1;
        c->choices = grown, c->room = room;
    }
    c->choices[c->held++] = window;
    return 0;
}

static inline const Found *best_choice(const Contenders *c) {
    const Found *best = NULL;
    for (Py_ssize_t k = 0; k < c->held; k++)
        if (best == NULL || ranks_above(&c->choices[k], best)) best = &c->choices[k];
    return best;
}

#endif
