/* The certificate checker of the certified LM-cut heuristic (H_CERTIFIED).
 *
 * Why: the reconciliation checker proves "no plan is cheaper than c" by A*, which must
 * expand every state with g + h < c. With h^max that is millions of states where the
 * search's LM-cut needs thousands, but the checker may not simply trust LM-cut: a fault
 * there would make checker and search agree on a wrong answer. So LM-cut (lmcut.c) is
 * only an untrusted oracle that hands over its cuts (sets of actions, each with the cost
 * it charged), and this file checks the certificate with code of its own:
 *
 *   (a) every cut with a positive charge is a disjunctive action landmark of the delete
 *       relaxation from the state: with the cut's actions removed, the relaxed
 *       reachability fixpoint below does not reach every goal fact;
 *   (b) the charges are a cost partition: each charge is >= 0 and, for every action, the
 *       charges of the cuts that contain it sum to at most its cost.
 *
 * Then h = the sum of the charges is admissible whatever LM-cut did: every plan from the
 * state is a relaxed plan, so by (a) it uses an action of every cut, and by (b) its cost
 * is at least the sum of the charges of the cuts it hits. A dead end (LM-cut's infinity)
 * is certified when the fixpoint with nothing removed misses a goal fact. A certificate
 * that fails is answered by the caller with h^max and counted (a bug in LM-cut).
 *
 * What this shares with the rest of the core: the flat task (CTask: the actions'
 * preconditions and adds, the axioms, the goal, each action's cost, and which actions are
 * active, the same set the A* expands). Not LM-cut's relaxed operators (Relaxed), its
 * h^max values, justification graph or heap. Negative preconditions and negative goals are
 * ignored and an axiom fires on its positive body alone: the fixpoint over-approximates
 * what any real plan reaches, which is all the landmark argument needs. Tasks with
 * conditional effects are not certified (CERT_UNSUPPORTED; LM-cut does not run on them).
 * Licence: MIT (part of xaip).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the certificate */

void cutlist_clear(CutList *c) {
    c->actions.n = 0;
    c->ends.n = 0;
}

void cutlist_free(CutList *c) {
    ivec_free(&c->actions);
    ivec_free(&c->ends);
    free(c->charge);
    c->charge = NULL;
    c->charge_cap = 0;
}

int cutlist_add(CutList *c, const int32_t *ops, size_t nops, const int32_t *op_action,
                cost_t charge) {
    size_t k = c->ends.n;
    if (k == c->charge_cap) {
        size_t cap = c->charge_cap ? 2 * c->charge_cap : 16;
        cost_t *a = realloc(c->charge, cap * sizeof *a);
        if (!a) return -1;
        c->charge = a;
        c->charge_cap = cap;
    }
    for (size_t i = 0; i < nops; i++)
        if (ivec_push(&c->actions, op_action ? op_action[ops[i]] : ops[i])) return -1;
    if (c->actions.n > INT32_MAX || ivec_push(&c->ends, (int32_t)c->actions.n)) return -1;
    c->charge[k] = charge;
    return 0;
}

/* ---------------------------------------------------------------- the checker */

struct CertWork {
    const CTask *t;
    int nf, na, nax;
    /* own indexes: fact -> active actions with it as a positive precondition, fact ->
     * axioms with it in their positive body */
    int32_t *need_off, *need_idx, *axneed_off, *axneed_idx;
    int32_t *npre, *ax_npos;     /* per action (-1: inactive) and per axiom */
    int32_t *free_act, *free_ax; /* active actions / axioms without positive conditions */
    int nfree_act, nfree_ax;
    uint8_t *is_goal, *removed;
    int32_t *unmet, *ax_unmet, *queue;
    uint64_t *reached, *goal; /* goal: the goal's facts below nf, a copy of its own */
    cost_t *charged;
};

void cert_work_free(CertWork *w) {
    if (!w) return;
    free(w->need_off);
    free(w->need_idx);
    free(w->axneed_off);
    free(w->axneed_idx);
    free(w->npre);
    free(w->ax_npos);
    free(w->free_act);
    free(w->free_ax);
    free(w->is_goal);
    free(w->removed);
    free(w->unmet);
    free(w->ax_unmet);
    free(w->queue);
    free(w->reached);
    free(w->goal);
    free(w->charged);
    free(w);
}

/* rows (items 0..n-1, each listing the facts rel->idx[rel->off[i]..]) inverted into
 * fact -> items, for the items with keep[i] >= 0 (keep NULL: all); -1 when out of memory */
static int invert(const CSR *rel, int n, const int32_t *keep, int nf, int32_t **off_out,
                  int32_t **idx_out) {
    int32_t *off = calloc((size_t)nf + 2, sizeof(int32_t));
    size_t total = 0;
    if (!off) return -1;
    for (int i = 0; i < n; i++) {
        if (keep && keep[i] < 0) continue;
        for (int32_t k = rel->off[i]; k < rel->off[i + 1]; k++) off[rel->idx[k] + 2]++;
        total += (size_t)(rel->off[i + 1] - rel->off[i]);
    }
    int32_t *idx = malloc((total ? total : 1) * sizeof(int32_t));
    if (!idx) {
        free(off);
        return -1;
    }
    for (int f = 0; f < nf; f++) off[f + 2] += off[f + 1];
    for (int i = 0; i < n; i++) { /* off[f + 1] is the next free slot of fact f */
        if (keep && keep[i] < 0) continue;
        for (int32_t k = rel->off[i]; k < rel->off[i + 1]; k++) idx[off[rel->idx[k] + 1]++] = i;
    }
    *off_out = off; /* rows f: off[f] .. off[f + 1] */
    *idx_out = idx;
    return 0;
}

CertWork *cert_work_new(const CTask *t) {
    CertWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    int nf = t->nfacts, na = t->nactions, nax = t->ax.naxioms;
    w->t = t;
    w->nf = nf;
    w->na = na;
    w->nax = nax;
    w->npre = malloc(((size_t)na + 1) * sizeof(int32_t));
    w->ax_npos = malloc(((size_t)nax + 1) * sizeof(int32_t));
    w->free_act = malloc(((size_t)na + 1) * sizeof(int32_t));
    w->free_ax = malloc(((size_t)nax + 1) * sizeof(int32_t));
    w->is_goal = calloc((size_t)nf + 1, 1);
    w->removed = calloc((size_t)na + 1, 1);
    w->unmet = malloc(((size_t)na + 1) * sizeof(int32_t));
    w->ax_unmet = malloc(((size_t)nax + 1) * sizeof(int32_t));
    w->queue = malloc(((size_t)nf + 1) * sizeof(int32_t));
    w->reached = malloc((size_t)t->nwords * sizeof(uint64_t));
    w->goal = calloc((size_t)t->nwords, sizeof(uint64_t));
    w->charged = calloc((size_t)na + 1, sizeof(cost_t));
    if (!w->npre || !w->ax_npos || !w->free_act || !w->free_ax || !w->is_goal || !w->removed ||
        !w->unmet || !w->ax_unmet || !w->queue || !w->reached || !w->goal || !w->charged)
        goto fail;
    for (int a = 0; a < na; a++) {
        w->npre[a] = t->active[a] ? t->pre.off[a + 1] - t->pre.off[a] : -1;
        if (w->npre[a] == 0) w->free_act[w->nfree_act++] = a;
    }
    for (int i = 0; i < nax; i++) {
        w->ax_npos[i] = t->ax.pos.off[i + 1] - t->ax.pos.off[i];
        if (w->ax_npos[i] == 0) w->free_ax[w->nfree_ax++] = i;
    }
    /* the goal's facts from its bitset (not CTask.goal_facts, LM-cut's list) */
    for (int f = 0; f < nf; f++)
        if ((w->is_goal[f] = (uint8_t)bit_get(t->goal, f))) bit_set(w->goal, f);
    if (invert(&t->pre, na, w->npre, nf, &w->need_off, &w->need_idx)) goto fail;
    if (nax && invert(&t->ax.pos, nax, NULL, nf, &w->axneed_off, &w->axneed_idx)) goto fail;
    return w;
fail:
    cert_work_free(w);
    return NULL;
}

/* Does the delete relaxation reach every goal fact from ``s`` without the actions marked
 * in ``w->removed``? A plain fixpoint: each fact enters the queue once, each action and
 * axiom fires when its last positive condition arrives (a counter per action). */
static int relaxed_goal_reached(CertWork *w, const uint64_t *s) {
    const CTask *t = w->t;
    int nf = w->nf, left = 0, tail = 0;
    memcpy(w->reached, s, (size_t)t->nwords * sizeof(uint64_t));
    for (int wd = 0; wd < t->nwords; wd++) {
        left += __builtin_popcountll(w->goal[wd] & ~s[wd]);
        for (uint64_t x = s[wd]; x; x &= x - 1) {
            int f = wd * 64 + __builtin_ctzll(x);
            if (f < nf) w->queue[tail++] = f;
        }
    }
    if (!left) return 1;
    memcpy(w->unmet, w->npre, (size_t)w->na * sizeof(int32_t));
    if (w->nax) memcpy(w->ax_unmet, w->ax_npos, (size_t)w->nax * sizeof(int32_t));
#define REACH(fact)                                      \
    do {                                                 \
        int32_t f_ = (fact);                             \
        if (!bit_get(w->reached, f_)) {                  \
            bit_set(w->reached, f_);                     \
            w->queue[tail++] = f_;                       \
            if (w->is_goal[f_] && --left == 0) return 1; \
        }                                                \
    } while (0)
#define FIRE(a)                                                                  \
    do {                                                                         \
        for (int32_t k_ = t->add.off[a]; k_ < t->add.off[(a) + 1]; k_++) REACH(t->add.idx[k_]); \
    } while (0)
    for (int i = 0; i < w->nfree_act; i++) {
        int a = w->free_act[i];
        if (!w->removed[a]) FIRE(a);
    }
    for (int i = 0; i < w->nfree_ax; i++) REACH(t->ax.head[w->free_ax[i]]);
    for (int head = 0; head < tail; head++) {
        int32_t f = w->queue[head];
        for (int32_t k = w->need_off[f]; k < w->need_off[f + 1]; k++) {
            int32_t a = w->need_idx[k];
            if (--w->unmet[a] == 0 && !w->removed[a]) FIRE(a);
        }
        if (w->nax)
            for (int32_t k = w->axneed_off[f]; k < w->axneed_off[f + 1]; k++) {
                int32_t i = w->axneed_idx[k];
                if (--w->ax_unmet[i] == 0) REACH(t->ax.head[i]);
            }
    }
#undef FIRE
#undef REACH
    return 0;
}

int cert_verify(CertWork *w, const uint64_t *s, const CutList *cuts, int dead_end,
                cost_t *value, int64_t *where) {
    const CTask *t = w->t;
    *where = -1;
    if (t->cond.n) return CERT_UNSUPPORTED;
    if (dead_end) {
        if (relaxed_goal_reached(w, s)) return CERT_NOT_LANDMARK;
        *value = COST_INF;
        return CERT_OK;
    }
    size_t ncuts = cuts->ends.n;
    const int32_t *acts = cuts->actions.a, *ends = cuts->ends.a;
    /* the shape: cuts non-empty, actions of the task, charges >= 0 */
    for (size_t k = 0, lo = 0; k < ncuts; lo = (size_t)ends[k++]) {
        if ((size_t)ends[k] <= lo || (size_t)ends[k] > cuts->actions.n || cuts->charge[k] < 0) {
            *where = (int64_t)k;
            return CERT_BAD_CUT;
        }
        for (size_t i = lo; i < (size_t)ends[k]; i++)
            if (acts[i] < 0 || acts[i] >= w->na) {
                *where = (int64_t)k;
                return CERT_BAD_CUT;
            }
    }
    /* (b) the cost partition: charged[a] <= cost[a] holds throughout, so no overflow */
    int verdict = CERT_OK;
    for (size_t k = 0, lo = 0; k < ncuts && verdict == CERT_OK; lo = (size_t)ends[k++])
        for (size_t i = lo; i < (size_t)ends[k]; i++) {
            int32_t a = acts[i];
            if (cuts->charge[k] > t->cost[a] - w->charged[a]) {
                verdict = CERT_OVERCHARGED;
                *where = a;
                break;
            }
            w->charged[a] += cuts->charge[k];
        }
    for (size_t i = 0; i < cuts->actions.n; i++) w->charged[acts[i]] = 0;
    if (verdict != CERT_OK) return verdict;
    /* (a) every charged cut is a landmark of the relaxation from s */
    cost_t total = 0;
    for (size_t k = 0, lo = 0; k < ncuts; lo = (size_t)ends[k++]) {
        if (cuts->charge[k] == 0) continue; /* adds nothing: nothing to prove */
        for (size_t i = lo; i < (size_t)ends[k]; i++) w->removed[acts[i]] = 1;
        int reached = relaxed_goal_reached(w, s);
        for (size_t i = lo; i < (size_t)ends[k]; i++) w->removed[acts[i]] = 0;
        if (reached) {
            *where = (int64_t)k;
            return CERT_NOT_LANDMARK;
        }
        /* saturating: a smaller value stays admissible */
        total = total >= COST_INF - 1 - cuts->charge[k] ? COST_INF - 1 : total + cuts->charge[k];
    }
    *value = total;
    return CERT_OK;
}
