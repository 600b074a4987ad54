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

#include <stdlib.h>
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

/* The actions' masks arrive sparse: ``masks`` is the concatenation of every mask's
 * little-endian bytes up to its highest set bit (int.to_bytes), ``lengths`` the byte length
 * of each (4 per action: pre, add, del, neg_pre; int32 little-endian). Full-width bitsets per
 * action would cost actions x facts / 8 bytes, gigabytes on large tasks. */
static int read_masks(PyObject *masks_o, PyObject *lengths_o, int nfacts, int nactions,
                      int per, CSR *rel) {
    Py_buffer mv, lv;
    if (PyObject_GetBuffer(masks_o, &mv, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(lengths_o, &lv, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&mv);
        return -1;
    }
    int rc = -1;
    IVec idx[4] = {{0}};
    size_t count = (size_t)nactions * (size_t)per;
    if ((size_t)lv.len != 4 * count) {
        PyErr_SetString(PyExc_ValueError, "lengths: expected one int32 per mask");
        goto done;
    }
    for (int k = 0; k < per; k++) {
        rel[k].off = malloc(((size_t)nactions + 1) * sizeof(int32_t));
        if (!rel[k].off) {
            PyErr_NoMemory();
            goto done;
        }
        rel[k].off[0] = 0;
    }
    const unsigned char *lens = lv.buf, *bytes = mv.buf;
    size_t at = 0;
    for (size_t m = 0; m < count; m++) {
        uint32_t len = (uint32_t)lens[4 * m] | (uint32_t)lens[4 * m + 1] << 8 |
                       (uint32_t)lens[4 * m + 2] << 16 | (uint32_t)lens[4 * m + 3] << 24;
        int k = (int)(m % (size_t)per), a = (int)(m / (size_t)per);
        if (len > (size_t)mv.len - at) {
            PyErr_SetString(PyExc_ValueError, "masks: shorter than the lengths say");
            goto done;
        }
        for (uint32_t i = 0; i < len; i++) {
            unsigned byte = bytes[at + i];
            while (byte) {
                int64_t f = 8 * (int64_t)i + __builtin_ctz(byte);
                byte &= byte - 1;
                if (f >= nfacts) {
                    PyErr_SetString(PyExc_ValueError, "masks: a fact index beyond num_facts");
                    goto done;
                }
                if (ivec_push(&idx[k], (int32_t)f)) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
        at += len;
        if (idx[k].n > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "task too large");
            goto done;
        }
        rel[k].off[a + 1] = (int32_t)idx[k].n;
    }
    if (at != (size_t)mv.len) {
        PyErr_SetString(PyExc_ValueError, "masks: longer than the lengths say");
        goto done;
    }
    for (int k = 0; k < per; k++) {
        if (!idx[k].a && ivec_push(&idx[k], 0)) { /* never NULL */
            PyErr_NoMemory();
            goto done;
        }
        rel[k].idx = idx[k].a;
        idx[k].a = NULL;
    }
    rc = 0;
done:
    for (int k = 0; k < 4; k++) ivec_free(&idx[k]);
    PyBuffer_Release(&mv);
    PyBuffer_Release(&lv);
    return rc;
}

/* The axioms: ``masks``/``lengths`` as the actions' (2 per axiom: pos, neg), ``heads`` and
 * ``strata`` int32 per axiom (strata ascending), ``derived`` one bitset. */
static int read_axioms(PyObject *masks_o, PyObject *lengths_o, PyObject *heads_o,
                       PyObject *strata_o, PyObject *derived_o, int nfacts, int nwords,
                       Axioms *ax) {
    Py_buffer hv, sv;
    memset(ax, 0, sizeof *ax);
    if (PyObject_GetBuffer(heads_o, &hv, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(strata_o, &sv, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&hv);
        return -1;
    }
    int rc = -1;
    uint64_t *derived = NULL;
    size_t n = (size_t)hv.len / 4;
    if ((size_t)hv.len % 4 || (size_t)sv.len != (size_t)hv.len || n > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "axiom_heads/axiom_strata: one int32 per axiom");
        goto done;
    }
    ax->naxioms = (int)n;
    ax->head = malloc((n + 1) * sizeof(int32_t));
    ax->stratum = malloc((n + 1) * sizeof(int32_t));
    if (!ax->head || !ax->stratum) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(ax->head, hv.buf, n * sizeof(int32_t));
    memcpy(ax->stratum, sv.buf, n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++)
        if (ax->head[i] < 0 || ax->head[i] >= nfacts || (i && ax->stratum[i] < ax->stratum[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "axioms: a head beyond num_facts or strata not ascending");
            goto done;
        }
    CSR rel[2] = {{0}};
    if (read_masks(masks_o, lengths_o, nfacts, (int)n, 2, rel)) {
        csr_free(&rel[0]);
        csr_free(&rel[1]);
        goto done;
    }
    ax->pos = rel[0];
    ax->neg = rel[1];
    if (read_words(derived_o, nwords, 1, &derived, "derived")) goto done;
    ax->derived = malloc((size_t)nwords * sizeof(uint64_t));
    if (!ax->derived) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(ax->derived, derived, (size_t)nwords * sizeof(uint64_t));
    rc = 0;
done:
    PyMem_Free(derived);
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sv);
    if (rc) axioms_free(ax);
    return rc;
}

/* The conditional effects: ``actions`` one int32 per effect (ascending), ``masks``/``lengths``
 * as the actions' (4 per effect: cond_pos, cond_neg, add, del). */
static int read_effects(PyObject *actions_o, PyObject *masks_o, PyObject *lengths_o,
                        int nfacts, int nactions, Effects *e) {
    Py_buffer av;
    memset(e, 0, sizeof *e);
    if (PyObject_GetBuffer(actions_o, &av, PyBUF_SIMPLE) < 0) return -1;
    int rc = -1;
    size_t n = (size_t)av.len / 4;
    if ((size_t)av.len % 4 || n > INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "effect_actions: one int32 per effect");
        goto done;
    }
    e->n = (int)n;
    e->action = malloc((n + 1) * sizeof(int32_t));
    if (!e->action) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(e->action, av.buf, n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++)
        if (e->action[i] < 0 || e->action[i] >= nactions || (i && e->action[i] < e->action[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "effect_actions: not ascending action indices");
            goto done;
        }
    rc = read_masks(masks_o, lengths_o, nfacts, (int)n, 4, e->rel);
done:
    PyBuffer_Release(&av);
    if (rc) effects_free(e);
    return rc;
}

static int Task_init(TaskObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"num_facts", "num_actions", "masks", "lengths", "costs", "init",
                             "goal", "goal_neg", "prune", "axiom_masks", "axiom_lengths",
                             "axiom_heads", "axiom_strata", "derived", "effect_actions",
                             "effect_masks", "effect_lengths", NULL};
    int nfacts, nactions, prune = 1;
    PyObject *masks_o, *lengths_o, *costs_o, *init_o, *goal_o, *goal_neg_o;
    PyObject *ax_masks_o = NULL, *ax_lengths_o = NULL, *ax_heads_o = NULL, *ax_strata_o = NULL,
             *derived_o = NULL, *eff_actions_o = NULL, *eff_masks_o = NULL, *eff_lengths_o = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOOOO|pOOOOOOOO", kwlist, &nfacts,
                                     &nactions, &masks_o, &lengths_o, &costs_o, &init_o,
                                     &goal_o, &goal_neg_o, &prune, &ax_masks_o, &ax_lengths_o,
                                     &ax_heads_o, &ax_strata_o, &derived_o, &eff_actions_o,
                                     &eff_masks_o, &eff_lengths_o))
        return -1;
    int with_effects = eff_actions_o != NULL && eff_actions_o != Py_None;
    if (with_effects && (!eff_masks_o || !eff_lengths_o)) {
        PyErr_SetString(PyExc_TypeError, "effect_actions needs effect_masks and effect_lengths");
        return -1;
    }
    int with_axioms = derived_o != NULL && derived_o != Py_None;
    if (with_axioms && (!ax_masks_o || !ax_lengths_o || !ax_heads_o || !ax_strata_o)) {
        PyErr_SetString(PyExc_TypeError, "derived needs axiom_masks, axiom_lengths, axiom_heads "
                                         "and axiom_strata");
        return -1;
    }
    if (nfacts < 0 || nactions < 0 || nfacts > INT32_MAX - 64) {
        PyErr_SetString(PyExc_ValueError, "bad task size");
        return -1;
    }
    if (self->task) {
        PyErr_SetString(PyExc_RuntimeError, "task already initialised");
        return -1;
    }
    int nwords = nfacts / 64 + 1;
    uint64_t *init = NULL, *goal = NULL, *goal_neg = NULL, *costs = NULL;
    CSR rel[4] = {{0}};
    Axioms ax = {0};
    Effects cond = {0};
    int rc = -1;
    if (read_words(costs_o, 1, (size_t)nactions, &costs, "costs") ||
        read_words(init_o, nwords, 1, &init, "init") ||
        read_words(goal_o, nwords, 1, &goal, "goal") ||
        read_words(goal_neg_o, nwords, 1, &goal_neg, "goal_neg"))
        goto done;
    for (int a = 0; a < nactions; a++)
        if ((int64_t)costs[a] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative action cost");
            goto done;
        }
    if (read_masks(masks_o, lengths_o, nfacts, nactions, 4, rel)) goto done;
    if (with_axioms && read_axioms(ax_masks_o, ax_lengths_o, ax_heads_o, ax_strata_o, derived_o,
                                   nfacts, nwords, &ax))
        goto done;
    if (with_effects &&
        read_effects(eff_actions_o, eff_masks_o, eff_lengths_o, nfacts, nactions, &cond))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    self->task = ctask_new(nfacts, nactions, nwords, rel, (const cost_t *)costs, init, goal,
                           goal_neg, prune, with_axioms ? &ax : NULL,
                           with_effects ? &cond : NULL);
    Py_END_ALLOW_THREADS
    if (!self->task) {
        PyErr_NoMemory();
        goto done;
    }
    rc = 0;
done:
    for (int k = 0; k < 4; k++) csr_free(&rel[k]); /* no-op once the task owns them */
    axioms_free(&ax);
    effects_free(&cond);
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
    static const char *names[] = {"blind", "hmax", "hadd", "hff", "lmcut", "lmcut-certified"};
    for (int i = 0; i < 6; i++)
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

static PyObject *Task_preferred(TaskObject *self, PyObject *args) {
    PyObject *state_o;
    if (!PyArg_ParseTuple(args, "O", &state_o) || !ready(self)) return NULL;
    uint64_t *state;
    if (read_words(state_o, self->task->nwords, 1, &state, "state")) return NULL;
    int n = self->task->nactions;
    HeurWork *w = heur_new(self->task, H_HFF);
    uint8_t *mark = calloc((size_t)n + 1, 1);
    int32_t *marked = malloc(((size_t)n + 1) * sizeof(int32_t));
    int count = w && mark && marked ? heur_preferred(w, state, mark, marked) : -1;
    PyObject *out = NULL;
    if (count < 0) {
        PyErr_NoMemory();
    } else if ((out = PyList_New(0))) {
        for (int a = 0; a < n; a++) { /* ascending action order */
            if (!mark[a]) continue;
            PyObject *x = PyLong_FromLong(a);
            if (!x || PyList_Append(out, x)) {
                Py_XDECREF(x);
                Py_CLEAR(out);
                break;
            }
            Py_DECREF(x);
        }
    }
    heur_free(w);
    free(mark);
    free(marked);
    PyMem_Free(state);
    return out;
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
                             "max_seconds", "max_bytes", "preferred", NULL};
    const char *mode, *heuristic;
    int admissible, preferred = 0;
    long long cost_bound, max_nodes, max_bytes;
    double max_seconds;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sspLLdL|p", kwlist, &mode, &heuristic,
                                     &admissible, &cost_bound, &max_nodes, &max_seconds,
                                     &max_bytes, &preferred) ||
        !ready(self))
        return NULL;
    SearchParams p = {0};
    p.preferred = preferred;
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
    return Py_BuildValue("(sN{sLsLsLsLsnsOsLsL})", statuses[r.status], plan, "expanded",
                         (long long)r.expanded, "generated", (long long)r.generated,
                         "evaluated", (long long)r.evaluated, "states", (long long)r.states,
                         "bytes", (Py_ssize_t)r.bytes, "memory_exhausted",
                         r.memory_exhausted ? Py_True : Py_False, "certified",
                         (long long)r.certified, "rejected", (long long)r.rejected);
}

/* The certificate as Python sees it: a list of (actions, charge) pairs. */
static PyObject *cuts_to_list(const CutList *c) {
    PyObject *out = PyList_New((Py_ssize_t)c->ends.n);
    for (size_t k = 0, lo = 0; out && k < c->ends.n; lo = (size_t)c->ends.a[k++]) {
        PyObject *acts = PyTuple_New((Py_ssize_t)((size_t)c->ends.a[k] - lo));
        for (size_t i = lo; acts && i < (size_t)c->ends.a[k]; i++) {
            PyObject *a = PyLong_FromLong(c->actions.a[i]);
            if (!a) Py_CLEAR(acts);
            else PyTuple_SET_ITEM(acts, (Py_ssize_t)(i - lo), a);
        }
        PyObject *pair = acts ? Py_BuildValue("(NL)", acts, (long long)c->charge[k]) : NULL;
        if (!pair) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)k, pair);
    }
    return out;
}

static PyObject *Task_cuts(TaskObject *self, PyObject *args) {
    PyObject *state_o, *out = NULL;
    if (!PyArg_ParseTuple(args, "O", &state_o) || !ready(self)) return NULL;
    if (self->task->cond.n)
        return PyErr_Format(PyExc_ValueError, "LM-cut does not run on conditional effects");
    uint64_t *state;
    if (read_words(state_o, self->task->nwords, 1, &state, "state")) return NULL;
    CutList cuts = {0};
    LMWork *lm = lm_work_new(&self->task->lm, self->task);
    cost_t h = COST_OOM;
    if (lm) {
        lm_export(lm, &cuts);
        h = lm_eval(lm, state);
    }
    if (h == COST_OOM) {
        PyErr_NoMemory();
    } else {
        PyObject *list = cuts_to_list(&cuts);
        if (list) out = h == COST_INF ? Py_BuildValue("(ON)", Py_None, list)
                                      : Py_BuildValue("(LN)", (long long)h, list);
    }
    lm_work_free(lm);
    cutlist_free(&cuts);
    PyMem_Free(state);
    return out;
}

static PyObject *Task_certify(TaskObject *self, PyObject *args) {
    static const char *verdicts[] = {"ok", "not a landmark", "over-charged", "bad cut",
                                     "unsupported"};
    PyObject *state_o, *cuts_o, *out = NULL;
    int dead_end = 0;
    if (!PyArg_ParseTuple(args, "OO|p", &state_o, &cuts_o, &dead_end) || !ready(self))
        return NULL;
    PyObject *seq = PySequence_Fast(cuts_o, "cuts: a sequence of (actions, charge) pairs");
    if (!seq) return NULL;
    uint64_t *state = NULL;
    CutList cuts = {0};
    IVec acts = {0};
    CertWork *w = NULL;
    if (read_words(state_o, self->task->nwords, 1, &state, "state")) goto done;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *acts_o;
        long long charge;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "OL", &acts_o, &charge))
            goto done;
        PyObject *items = PySequence_Fast(acts_o, "a cut: a sequence of action indices");
        if (!items) goto done;
        acts.n = 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items); i++) {
            long a = PyLong_AsLong(PySequence_Fast_GET_ITEM(items, i));
            if ((a == -1 && PyErr_Occurred()) || a < INT32_MIN || a > INT32_MAX ||
                ivec_push(&acts, (int32_t)a)) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad action index");
                Py_DECREF(items);
                goto done;
            }
        }
        Py_DECREF(items);
        if (cutlist_add(&cuts, acts.a, acts.n, NULL, (cost_t)charge)) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (!(w = cert_work_new(self->task))) {
        PyErr_NoMemory();
        goto done;
    }
    cost_t value = 0;
    int64_t where;
    int verdict = cert_verify(w, state, &cuts, dead_end, &value, &where);
    if (verdict == CERT_OK)
        out = value == COST_INF ? Py_BuildValue("(sO)", "ok", Py_None)
                                : Py_BuildValue("(sL)", "ok", (long long)value);
    else
        out = where < 0 ? Py_BuildValue("(sO)", verdicts[verdict], Py_None)
                        : Py_BuildValue("(sL)", verdicts[verdict], (long long)where);
done:
    cert_work_free(w);
    cutlist_free(&cuts);
    ivec_free(&acts);
    PyMem_Free(state);
    Py_DECREF(seq);
    return out;
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
     "solve(mode, heuristic, admissible, cost_bound, max_nodes, max_seconds, max_bytes,"
     " preferred=False) -> (status, plan, stats); negative numbers mean no limit"},
    {"preferred", (PyCFunction)Task_preferred, METH_VARARGS,
     "preferred(state_bytes) -> sorted action indices of h_FF's relaxed plan"},
    {"evaluate", (PyCFunction)Task_evaluate, METH_VARARGS,
     "evaluate(heuristic, state_bytes) -> int, or None for a dead end"},
    {"cuts", (PyCFunction)Task_cuts, METH_VARARGS,
     "cuts(state_bytes) -> (LM-cut's value or None, [(actions, charge), ...]): its certificate"},
    {"certify", (PyCFunction)Task_certify, METH_VARARGS,
     "certify(state_bytes, cuts, dead_end=False) -> ('ok', h or None) or (why, cut or action)"},
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
