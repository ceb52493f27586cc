/* A binary heap of (time, job) pairs, ordered as Python orders those tuples (time, then job):
 * heapq's order, so pops come in the same order as the Python loops' pops. */
#ifndef GRIDSIM_CORE_HEAP_H
#define GRIDSIM_CORE_HEAP_H

#include <Python.h>
#include <stdint.h>

typedef struct { double time; int64_t job; } Entry;

typedef struct { Entry *items; Py_ssize_t size, capacity; } Heap;

static inline int entry_less(Entry a, Entry b) {
    return a.time < b.time || (a.time == b.time && a.job < b.job);
}

static inline int heap_push(Heap *heap, double time, int64_t job) {
    if (heap->size == heap->capacity) {
        Py_ssize_t capacity = heap->capacity ? 2 * heap->capacity : 64;
        Entry *items = PyMem_Realloc(heap->items, capacity * sizeof(Entry));
        if (items == NULL) { PyErr_NoMemory(); return -1; }
        heap->items = items;
        heap->capacity = capacity;
    }
    Py_ssize_t i = heap->size++;
    Entry entry = {time, job};
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!entry_less(entry, heap->items[parent])) break;
        heap->items[i] = heap->items[parent];
        i = parent;
    }
    heap->items[i] = entry;
    return 0;
}

static inline void sift_down(Heap *heap, Py_ssize_t i) {
    Entry entry = heap->items[i];
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= heap->size) break;
        if (child + 1 < heap->size && entry_less(heap->items[child + 1], heap->items[child]))
            child++;
        if (!entry_less(heap->items[child], entry)) break;
        heap->items[i] = heap->items[child];
        i = child;
    }
    heap->items[i] = entry;
}

static inline Entry heap_pop(Heap *heap) {
    Entry top = heap->items[0];
    heap->items[0] = heap->items[--heap->size];
    if (heap->size > 0) sift_down(heap, 0);
    return top;
}

#endif
