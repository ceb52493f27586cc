/* The per-job arrays the replays read and write, taken from Python as C-contiguous buffers. */
#ifndef GRIDSIM_CORE_BUFFERS_H
#define GRIDSIM_CORE_BUFFERS_H

#include <Python.h>

/* ``object``'s buffer of ``jobs`` 8-byte values (int64 or float64) into ``view``; on error a
   ValueError naming ``name``, and ``view`` left released. */
static inline int get_job_vector(PyObject *object, Py_buffer *view, Py_ssize_t jobs,
                                 int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    if (view->itemsize != 8 || view->len != jobs * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd 8-byte values", name, jobs);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

#endif
