/* xaip compiled search core: shared declarations.
 *
 * Why C with flat arrays: the pure-Python engine (xaip.planning.search / heuristics) spends
 * most of its time in interpreter overhead. This core mirrors the same algorithms on
 * compressed-sparse-row arrays (one offsets array + one indices array per relation) and
 * states as bitsets of 64-bit words, so tie-breaking and heuristic values are identical
 * to the Python reference and the two can be cross-checked state by state.
 *
 * Licence: MIT (part of xaip). Nothing here depends on Python; module.c is the binding.
 */
#ifndef XAIP_CORE_H
#define XAIP_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int64_t cost_t;
#define COST_INF INT64_MAX
/* A heuristic evaluation that ran out of memory (the search reports budget exhausted). */
#define COST_OOM (-1)

/* ---------------------------------------------------------------- growable arrays */

typedef struct {
    int32_t *a;
    size_t n, cap;
} IVec;

int ivec_push(IVec *v, int32_t x); /* 0 on success, -1 when out of memory */
void ivec_free(IVec *v);

/* A binary min-heap of (value, fact) pairs ordered by value, then fact: the same order as
 * the Python reference's integer keys ``value << shift | fact``. */
typedef struct {
    cost_t v;
    int32_t f;
} Pair;

/* Keys are ``value << 32 | fact`` in 128 bits: one branch-free comparison per step. */
typedef unsigned __int128 PairKey;

typedef struct {
    PairKey *a;
    size_t n, cap;
    int oom;
} PairHeap;

void pheap_push(PairHeap *h, cost_t v, int32_t f); /* sets h->oom on failure */
Pair pheap_pop(PairHeap *h);
void pheap_free(PairHeap *h);

/* ---------------------------------------------------------------- the task */

/* Compressed sparse rows: items of row r are idx[off[r] .. off[r+1]). */
typedef struct {
    int32_t *off;
    int32_t *idx;
} CSR;

int csr_from_lists(CSR *out, int rows, const IVec *lists); /* lists[r] -> row r */
void csr_free(CSR *c);

/* Unary operators of the delete relaxation (one per action with a new add). With
 * ``init_fact >= 0`` (LM-cut) operators without preconditions get the artificial INIT
 * fact and a goal operator is appended; facts then number ``nfacts = task facts + 2``. */
typedef struct {
    int nfacts, nops;
    CSR pre, add, pre_of, adders;
    cost_t *cost;
    int32_t *npre;
    int32_t *no_pre; /* operators without preconditions (plain relaxation only) */
    int32_t *op_action; /* the action of each operator (-1: LM-cut's goal operator) */
    int nno_pre;
    int init_fact, goal_fact, goal_op;
    size_t total_adds;
} Relaxed;

/* Ground axioms (derived predicates), as xaip.planning.axioms.GroundAxiom: ``head`` becomes
 * true when every fact of row ``pos`` holds and none of row ``neg``. Rows are ordered by
 * ascending stratum; ``derived`` (nwords words) marks the facts the axioms compute. */
typedef struct {
    int naxioms;
    CSR pos, neg;
    int32_t *head, *stratum;
    uint64_t *derived;
} Axioms;

/* Conditional effects, as xaip.planning.task.ConditionalEffect: effect ``e`` of action
 * ``action[e]`` (ascending) adds row ``rel[2]`` and deletes row ``rel[3]`` when every fact of
 * ``rel[0]`` and none of ``rel[1]`` hold in the state the action is applied in. */
typedef struct {
    int n;
    int32_t *action;
    CSR rel[4];
} Effects;

typedef struct {
    int nfacts, nactions, nwords;
    CSR pre, add, del, neg;
    cost_t *cost;
    cost_t min_cost;
    uint64_t *init, *goal, *goal_neg; /* nwords each */
    int32_t *goal_facts;
    int ngoal;
    /* successor generator: each action filed under its least-used precondition fact */
    CSR bucket;
    int32_t *always;
    int nalways;
    uint8_t *active; /* actions the search and heuristics use (see select_actions) */
    int nactive;
    Relaxed relax, lm;
    /* derived predicates: naxioms == 0 for a task without them. ``ax_users``: for each fact,
     * the axioms with it in their positive body (counter propagation, see ctask_close) */
    Axioms ax;
    CSR ax_users;
    /* conditional effects: cond.n == 0 without them; ``eff_of``: each action's effects */
    Effects cond;
    CSR eff_of;
} CTask;

/* Build from the actions' pre, add, del and neg_pre fact lists (``rel``, one CSR each, rows
 * = actions, indices ascending; the task takes ownership of them, also on failure) and
 * full-width bitsets of ``nwords`` words for init, goal and goal_neg. ``prune``: drop
 * irrelevant and duplicate actions (see select_actions in task.c). NULL when out of memory.
 */
CTask *ctask_new(int nfacts, int nactions, int nwords, CSR rel[4], const cost_t *costs,
                 const uint64_t *init, const uint64_t *goal, const uint64_t *goal_neg,
                 int prune, Axioms *ax, Effects *cond);
/* ``ax`` and ``cond`` (NULL: none) are taken over like ``rel``. With axioms or conditional
 * effects, ``prune`` only drops duplicate actions without conditional effects (relevance
 * would have to be traced through axiom bodies and effect conditions). */
void ctask_free(CTask *t);

static inline int bit_get(const uint64_t *s, int f) { return (int)((s[f >> 6] >> (f & 63)) & 1u); }
static inline void bit_set(uint64_t *s, int f) { s[f >> 6] |= (uint64_t)1 << (f & 63); }
static inline void bit_clear(uint64_t *s, int f) { s[f >> 6] &= ~((uint64_t)1 << (f & 63)); }

static inline int effect_fires(const CTask *t, const uint64_t *s, int e) {
    const CSR *pos = &t->cond.rel[0], *neg = &t->cond.rel[1];
    for (int32_t i = pos->off[e]; i < pos->off[e + 1]; i++)
        if (!bit_get(s, pos->idx[i])) return 0;
    for (int32_t i = neg->off[e]; i < neg->off[e + 1]; i++)
        if (bit_get(s, neg->idx[i])) return 0;
    return 1;
}

/* ``out`` = the successor of ``s`` under action ``a`` (applicable), before the axioms:
 * (s minus every delete) plus every add, the conditional ones that fire in ``s`` included,
 * as GroundAction.apply. */
static inline void ctask_apply(const CTask *t, const uint64_t *s, int a, uint64_t *out) {
    memcpy(out, s, (size_t)t->nwords * sizeof(uint64_t));
    for (int32_t i = t->del.off[a]; i < t->del.off[a + 1]; i++) bit_clear(out, t->del.idx[i]);
    if (t->cond.n) {
        const CSR *eff_del = &t->cond.rel[3];
        for (int32_t k = t->eff_of.off[a]; k < t->eff_of.off[a + 1]; k++) {
            int e = t->eff_of.idx[k];
            if (effect_fires(t, s, e))
                for (int32_t i = eff_del->off[e]; i < eff_del->off[e + 1]; i++)
                    bit_clear(out, eff_del->idx[i]);
        }
    }
    for (int32_t i = t->add.off[a]; i < t->add.off[a + 1]; i++) bit_set(out, t->add.idx[i]);
    if (t->cond.n) {
        const CSR *eff_add = &t->cond.rel[2];
        for (int32_t k = t->eff_of.off[a]; k < t->eff_of.off[a + 1]; k++) {
            int e = t->eff_of.idx[k];
            if (effect_fires(t, s, e))
                for (int32_t i = eff_add->off[e]; i < eff_add->off[e + 1]; i++)
                    bit_set(out, eff_add->idx[i]);
        }
    }
}

/* ``s`` with its derived facts recomputed from its basic ones (PDDL 2.2 semantics, as
 * xaip.planning.axioms.AxiomEvaluator): all removed, then each stratum's least fixpoint in
 * ascending order. ``missing`` and ``queue`` are scratch of ``naxioms`` entries each. */
void ctask_close(const CTask *t, uint64_t *s, int32_t *missing, int32_t *queue);
void axioms_free(Axioms *ax);
void effects_free(Effects *e);

int ctask_is_goal(const CTask *t, const uint64_t *s);
int ctask_goal_facts_hold(const CTask *t, const uint64_t *s); /* ignores goal_neg */
/* Applicable actions of ``s`` in ascending index order into ``out`` (size nactions). */
int ctask_applicable(const CTask *t, const uint64_t *s, int32_t *out);

/* ---------------------------------------------------------------- heuristics */

/* H_CERTIFIED: LM-cut's cuts, each verified by certify.c before its charge counts (h_max
 * for a state whose certificate fails; see certify.c) */
enum { H_BLIND = 0, H_HMAX = 1, H_HADD = 2, H_HFF = 3, H_LMCUT = 4, H_CERTIFIED = 5 };

typedef struct HeurWork HeurWork;
HeurWork *heur_new(const CTask *t, int kind);
void heur_free(HeurWork *w);
/* h(s): COST_INF for a proven dead end, COST_OOM when out of memory. */
cost_t heur_eval(HeurWork *w, const uint64_t *s);
/* H_CERTIFIED's counts so far (0 for other heuristics) */
void heur_certificates(const HeurWork *w, int64_t *certified, int64_t *rejected);
/* relax_preferred for an h_FF HeurWork (-1 for other heuristics) */
int heur_preferred(HeurWork *w, const uint64_t *s, uint8_t *mark, int32_t *marked);

/* relax.c */
typedef struct RelaxWork RelaxWork;
RelaxWork *relax_work_new(const Relaxed *r, const CTask *t);
void relax_work_free(RelaxWork *w);
cost_t relax_eval(RelaxWork *w, const uint64_t *s, int kind);
/* HFF.helpful_actions without the applicability filter: sets mark[a] = 1 for the actions of
 * h_FF's relaxed plan from ``s`` and lists them in ``marked`` (the caller clears the marks);
 * returns how many, 0 at goals and dead ends, -1 when out of memory. */
int relax_preferred(RelaxWork *w, const uint64_t *s, uint8_t *mark, int32_t *marked);

/* lmcut.c */
typedef struct LMWork LMWork;
LMWork *lm_work_new(const Relaxed *r, const CTask *t);
void lm_work_free(LMWork *w);
cost_t lm_eval(LMWork *w, const uint64_t *s);

/* certify.c: LM-cut's cuts as a certificate (cut = the task's actions of its operators,
 * charge = the cost LM-cut took from each of them), written by lm_eval while
 * lm_export(w, list) is set, and checked by code that shares nothing with LM-cut. */
typedef struct {
    IVec actions;   /* every cut's actions, one cut after another */
    IVec ends;      /* one past each cut's last entry in ``actions`` */
    cost_t *charge; /* per cut */
    size_t charge_cap;
} CutList;

void lm_export(LMWork *w, CutList *out); /* NULL: stop recording */
void cutlist_clear(CutList *c);
void cutlist_free(CutList *c);
/* 0 on success, -1 when out of memory */
int cutlist_add(CutList *c, const int32_t *ops, size_t nops, const int32_t *op_action,
                cost_t charge);

typedef struct CertWork CertWork;
/* verdicts of cert_verify; CERT_OK: *value is admissible (COST_INF: a proven dead end) */
enum { CERT_OK = 0, CERT_NOT_LANDMARK = 1, CERT_OVERCHARGED = 2, CERT_BAD_CUT = 3,
       CERT_UNSUPPORTED = 4 };
CertWork *cert_work_new(const CTask *t);
void cert_work_free(CertWork *w);
/* Check the certificate ``cuts`` for state ``s`` (with ``dead_end``: the claim that no
 * relaxed plan exists from ``s``). On CERT_OK, *value = the sum of the charges (or
 * COST_INF); otherwise *where = the offending cut (NOT_LANDMARK, BAD_CUT) or action
 * (OVERCHARGED). */
int cert_verify(CertWork *w, const uint64_t *s, const CutList *cuts, int dead_end,
                cost_t *value, int64_t *where);

/* ---------------------------------------------------------------- search */

enum { S_SOLVED = 0, S_UNSOLVABLE = 1, S_BUDGET = 2, S_INTERRUPTED = 3 };
enum { M_ASTAR = 0, M_UCS = 1, M_GBFS = 2 };

typedef struct {
    int mode, heuristic, admissible;
    /* GBFS with h_FF's preferred operators: a second open list of the children reached by
     * relaxed-plan actions, taken in alternation and boosted on progress (see search.c) */
    int preferred;
    cost_t cost_bound; /* COST_INF: none */
    int64_t max_nodes; /* < 0: none */
    double max_seconds; /* < 0: none */
    size_t max_bytes; /* 0: none */
    /* called every few thousand work units; non-zero aborts (S_INTERRUPTED) */
    int (*interrupt)(void *);
    void *interrupt_arg;
} SearchParams;

typedef struct {
    int status;
    int32_t *plan; /* malloc'd action indices (caller frees) */
    int plan_len;
    int64_t expanded, generated, evaluated, states;
    int64_t certified, rejected; /* H_CERTIFIED: certificates accepted / failed (h_max) */
    size_t bytes;
    int memory_exhausted;
} SearchResult;

void search_run(const CTask *t, const SearchParams *p, SearchResult *r);
double now_seconds(void);

#endif
