/* xaip._core: the CPython binding of the compiled search core.
 *
 * Why the plain C API: no build-time download (nanobind/pybind11), nothing but gcc and
 * Python headers, which is what a fresh machine has. The binding is thin on purpose: one
 * type, ``Task``, built once from byte strings of bitset words (the Python side writes them
 * with int.to_bytes), with ``solve`` (runs without the GIL) and ``evaluate``.
 * Licence: MIT (part of xaip).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "core.h"

typedef struct {
    PyObject_HEAD
    CTask *task;
} TaskObject;

static int read_words(PyObject *obj, int nwords, size_t count, uint64_t **out, const char *what) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return -1;
    size_t need = (size_t)nwords * 8 * count;
    if ((size_t)view.len != need) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zu bytes, got %zd", what, need, view.len);
        PyBuffer_Release(&view);
        return -1;
    }
    uint64_t *words = PyMem_Malloc(need ? need : 8);
    if (!words) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    const unsigned char *bytes = view.buf;
    for (size_t w = 0; w < (size_t)nwords * count; w++) {
        uint64_t x = 0;
        for (int b = 7; b >= 0; b--) x = (x << 8) | bytes[w * 8 + (size_t)b];
        words[w] = x;
    }
    PyBuffer_Release(&view);
    *out = words;
    return 0;
}

static int Task_init(TaskObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"num_facts", "num_actions", "masks", "costs", "init", "goal",
                             "goal_neg", "prune", NULL};
    int nfacts, nactions, prune = 1;
    PyObject *masks_o, *costs_o, *init_o, *goal_o, *goal_neg_o;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOOO|p", kwlist, &nfacts, &nactions,
                                     &masks_o, &costs_o, &init_o, &goal_o, &goal_neg_o,
                                     &prune))
        return -1;
    if (nfacts < 0 || nactions < 0 || nfacts > INT32_MAX - 64) {
        PyErr_SetString(PyExc_ValueError, "bad task size");
        return -1;
    }
    int nwords = nfacts / 64 + 1;
    uint64_t *masks = NULL, *init = NULL, *goal = NULL, *goal_neg = NULL, *costs = NULL;
    int rc = -1;
    if (read_words(masks_o, nwords, (size_t)nactions * 4, &masks, "masks") ||
        read_words(costs_o, 1, (size_t)nactions, &costs, "costs") ||
        read_words(init_o, nwords, 1, &init, "init") ||
        read_words(goal_o, nwords, 1, &goal, "goal") ||
        read_words(goal_neg_o, nwords, 1, &goal_neg, "goal_neg"))
        goto done;
    for (int a = 0; a < nactions; a++)
        if ((int64_t)costs[a] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative action cost");
            goto done;
        }
    if (self->task) {
        PyErr_SetString(PyExc_RuntimeError, "task already initialised");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    self->task = ctask_new(nfacts, nactions, nwords, masks, (const cost_t *)costs, init, goal,
                           goal_neg, prune);
    Py_END_ALLOW_THREADS
    if (!self->task) {
        PyErr_NoMemory();
        goto done;
    }
    rc = 0;
done:
    PyMem_Free(masks);
    PyMem_Free(costs);
    PyMem_Free(init);
    PyMem_Free(goal);
    PyMem_Free(goal_neg);
    return rc;
}

static void Task_dealloc(TaskObject *self) {
    ctask_free(self->task);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int heuristic_kind(const char *name) {
    static const char *names[] = {"blind", "hmax", "hadd", "hff", "lmcut"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, names[i])) return i;
    PyErr_Format(PyExc_ValueError, "unknown heuristic '%s'", name);
    return -1;
}

static int ready(TaskObject *self) {
    if (self->task) return 1;
    PyErr_SetString(PyExc_RuntimeError, "task not initialised");
    return 0;
}

static PyObject *Task_evaluate(TaskObject *self, PyObject *args) {
    const char *name;
    PyObject *state_o;
    if (!PyArg_ParseTuple(args, "sO", &name, &state_o) || !ready(self)) return NULL;
    int kind = heuristic_kind(name);
    if (kind < 0) return NULL;
    uint64_t *state;
    if (read_words(state_o, self->task->nwords, 1, &state, "state")) return NULL;
    HeurWork *w = heur_new(self->task, kind);
    cost_t h = w ? heur_eval(w, state) : COST_OOM;
    heur_free(w);
    PyMem_Free(state);
    if (h == COST_OOM) return PyErr_NoMemory();
    if (h == COST_INF) Py_RETURN_NONE;
    return PyLong_FromLongLong(h);
}

static int check_signals(void *arg) {
    PyThreadState **saved = arg;
    PyEval_RestoreThread(*saved);
    int err = PyErr_CheckSignals();
    *saved = PyEval_SaveThread();
    return err != 0;
}

static PyObject *Task_solve(TaskObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"mode", "heuristic", "admissible", "cost_bound", "max_nodes",
                             "max_seconds", "max_bytes", NULL};
    const char *mode, *heuristic;
    int admissible;
    long long cost_bound, max_nodes, max_bytes;
    double max_seconds;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sspLLdL", kwlist, &mode, &heuristic,
                                     &admissible, &cost_bound, &max_nodes, &max_seconds,
                                     &max_bytes) ||
        !ready(self))
        return NULL;
    SearchParams p = {0};
    if (!strcmp(mode, "astar"))
        p.mode = M_ASTAR;
    else if (!strcmp(mode, "ucs"))
        p.mode = M_UCS;
    else if (!strcmp(mode, "gbfs"))
        p.mode = M_GBFS;
    else
        return PyErr_Format(PyExc_ValueError, "unknown search '%s'", mode);
    if ((p.heuristic = heuristic_kind(heuristic)) < 0) return NULL;
    p.admissible = admissible;
    p.cost_bound = cost_bound < 0 ? COST_INF : (cost_t)cost_bound;
    p.max_nodes = max_nodes;
    p.max_seconds = max_seconds;
    p.max_bytes = max_bytes > 0 ? (size_t)max_bytes : 0;
    PyThreadState *saved;
    p.interrupt = check_signals;
    p.interrupt_arg = &saved;
    SearchResult r;
    saved = PyEval_SaveThread();
    search_run(self->task, &p, &r);
    PyEval_RestoreThread(saved);
    if (r.status == S_INTERRUPTED) {
        free(r.plan);
        return NULL; /* the signal handler's exception (KeyboardInterrupt) is set */
    }
    static const char *statuses[] = {"solved", "unsolvable", "budget_exhausted"};
    PyObject *plan = PyTuple_New(r.plan_len);
    if (!plan) {
        free(r.plan);
        return NULL;
    }
    for (int i = 0; i < r.plan_len; i++) {
        PyObject *a = PyLong_FromLong(r.plan[i]);
        if (!a) {
            Py_DECREF(plan);
            free(r.plan);
            return NULL;
        }
        PyTuple_SET_ITEM(plan, i, a);
    }
    free(r.plan);
    return Py_BuildValue("(sN{sLsLsLsLsnsO})", statuses[r.status], plan, "expanded",
                         (long long)r.expanded, "generated", (long long)r.generated,
                         "evaluated", (long long)r.evaluated, "states", (long long)r.states,
                         "bytes", (Py_ssize_t)r.bytes, "memory_exhausted",
                         r.memory_exhausted ? Py_True : Py_False);
}

static PyObject *Task_get_num_facts(TaskObject *self, void *closure) {
    (void)closure;
    return ready(self) ? PyLong_FromLong(self->task->nfacts) : NULL;
}

static PyObject *Task_get_num_actions(TaskObject *self, void *closure) {
    (void)closure;
    return ready(self) ? PyLong_FromLong(self->task->nactions) : NULL;
}

static PyObject *Task_get_num_active(TaskObject *self, void *closure) {
    (void)closure;
    return ready(self) ? PyLong_FromLong(self->task->nactive) : NULL;
}

static PyMethodDef Task_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Task_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(mode, heuristic, admissible, cost_bound, max_nodes, max_seconds, max_bytes)"
     " -> (status, plan, stats); negative numbers mean no limit"},
    {"evaluate", (PyCFunction)Task_evaluate, METH_VARARGS,
     "evaluate(heuristic, state_bytes) -> int, or None for a dead end"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Task_getset[] = {
    {"num_facts", (getter)Task_get_num_facts, NULL, "number of facts", NULL},
    {"num_actions", (getter)Task_get_num_actions, NULL, "number of actions", NULL},
    {"num_active", (getter)Task_get_num_active, NULL,
     "actions kept for search (relevant, without duplicates)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TaskType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xaip._core.Task",
    .tp_basicsize = sizeof(TaskObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A grounded STRIPS task compiled to flat arrays (see xaip.planning.engines.compiled).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Task_init,
    .tp_dealloc = (destructor)Task_dealloc,
    .tp_methods = Task_methods,
    .tp_getset = Task_getset,
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "xaip._core",
    "The compiled search core of xaip (A*, h_max, h_add, h_FF, LM-cut in C).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&TaskType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&TaskType);
    if (PyModule_AddObject(m, "Task", (PyObject *)&TaskType) < 0) {
        Py_DECREF(&TaskType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
