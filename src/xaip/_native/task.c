/* The flat task: CSR relations, the successor generator and the relaxed operators.
 *
 * Why a per-fact action index: an expansion then only tests the actions filed under facts
 * true in the state (each action under its least-used precondition, so buckets stay small)
 * instead of scanning all actions, exactly as xaip.planning.search.successors does.
 * Licence: MIT (part of xaip).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- containers */

int ivec_push(IVec *v, int32_t x) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        int32_t *a = realloc(v->a, cap * sizeof *a);
        if (!a) return -1;
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = x;
    return 0;
}

void ivec_free(IVec *v) {
    free(v->a);
    v->a = NULL;
    v->n = v->cap = 0;
}

void pheap_push(PairHeap *h, cost_t v, int32_t f) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        PairKey *a = realloc(h->a, cap * sizeof *a);
        if (!a) {
            h->oom = 1;
            return;
        }
        h->a = a;
        h->cap = cap;
    }
    PairKey x = ((PairKey)(uint64_t)v << 32) | (uint32_t)f;
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (x >= h->a[parent]) break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = x;
}

Pair pheap_pop(PairHeap *h) {
    PairKey top = h->a[0];
    PairKey last = h->a[--h->n];
    size_t n = h->n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h->a[c + 1] < h->a[c]) c++;
        if (h->a[c] >= last) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (n) h->a[i] = last;
    Pair out = {(cost_t)(uint64_t)(top >> 32), (int32_t)(uint32_t)top};
    return out;
}

void pheap_free(PairHeap *h) {
    free(h->a);
    h->a = NULL;
    h->n = h->cap = 0;
}

int csr_from_lists(CSR *out, int rows, const IVec *lists) {
    size_t total = 0;
    for (int r = 0; r < rows; r++) total += lists[r].n;
    out->off = malloc(((size_t)rows + 1) * sizeof(int32_t));
    out->idx = malloc((total ? total : 1) * sizeof(int32_t));
    if (!out->off || !out->idx) return -1;
    size_t k = 0;
    for (int r = 0; r < rows; r++) {
        out->off[r] = (int32_t)k;
        if (lists[r].n) memcpy(out->idx + k, lists[r].a, lists[r].n * sizeof(int32_t));
        k += lists[r].n;
    }
    out->off[rows] = (int32_t)k;
    return 0;
}

void csr_free(CSR *c) {
    free(c->off);
    free(c->idx);
    c->off = c->idx = NULL;
}

static IVec *lists_new(int rows) { return calloc((size_t)rows + 1, sizeof(IVec)); }

static void lists_free(IVec *lists, int rows) {
    if (!lists) return;
    for (int r = 0; r < rows; r++) ivec_free(&lists[r]);
    free(lists);
}

/* Fact indices of a bitset, ascending. */
static int mask_bits(const uint64_t *m, int nwords, IVec *out) {
    for (int w = 0; w < nwords; w++) {
        uint64_t x = m[w];
        while (x) {
            int b = __builtin_ctzll(x);
            if (ivec_push(out, w * 64 + b)) return -1;
            x &= x - 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- relaxed operators */

static void relaxed_free(Relaxed *r) {
    csr_free(&r->pre);
    csr_free(&r->add);
    csr_free(&r->pre_of);
    csr_free(&r->adders);
    free(r->cost);
    free(r->npre);
    free(r->no_pre);
    free(r->op_action);
}

/* Mirrors RelaxedTask.from_task (lm = 0) and LMCut.__init__ (lm = 1). */
static int relaxed_build(Relaxed *r, const CTask *t, int lm) {
    int nf = t->nfacts + (lm ? 2 : 0), rc = -1;
    memset(r, 0, sizeof *r);
    r->nfacts = nf;
    r->init_fact = lm ? t->nfacts : -1;
    r->goal_fact = lm ? t->nfacts + 1 : -1;
    r->goal_op = -1;
    int maxops = t->nactions + t->cond.n + t->ax.naxioms + 1;
    IVec *pres = lists_new(maxops), *adds = lists_new(maxops);
    IVec *pre_of = lists_new(nf), *adders = lists_new(nf);
    uint64_t *in_pre = calloc((size_t)t->nwords, sizeof(uint64_t));
    r->cost = malloc((size_t)maxops * sizeof(cost_t));
    r->npre = malloc((size_t)maxops * sizeof(int32_t));
    r->no_pre = malloc((size_t)maxops * sizeof(int32_t));
    r->op_action = malloc((size_t)maxops * sizeof(int32_t));
    if (!pres || !adds || !pre_of || !adders || !in_pre || !r->cost || !r->npre || !r->no_pre ||
        !r->op_action)
        goto done;
    int nops = 0;
    for (int a = 0; a < t->nactions; a++) {
        if (!t->active[a]) continue;
        int32_t lo = t->pre.off[a], hi = t->pre.off[a + 1];
        for (int32_t i = lo; i < hi; i++) bit_set(in_pre, t->pre.idx[i]);
        for (int32_t i = t->add.off[a]; i < t->add.off[a + 1]; i++)
            if (!bit_get(in_pre, t->add.idx[i]) && ivec_push(&adds[nops], t->add.idx[i])) goto done;
        for (int32_t i = lo; i < hi; i++) bit_clear(in_pre, t->pre.idx[i]);
        if (adds[nops].n) { /* else nothing new: never helps a relaxed plan */
            for (int32_t i = lo; i < hi; i++)
                if (ivec_push(&pres[nops], t->pre.idx[i])) goto done;
            if (lm && pres[nops].n == 0 && ivec_push(&pres[nops], r->init_fact)) goto done;
            r->cost[nops] = t->cost[a];
            r->op_action[nops] = a;
            nops++;
        }
        if (lm || !t->cond.n) continue; /* LM-cut falls back to h_max with them */
        /* each conditional effect: its own operator, precondition = the action's and the
         * effect's positive condition, as RelaxedTask.from_task */
        for (int32_t k = t->eff_of.off[a]; k < t->eff_of.off[a + 1]; k++) {
            int e = t->eff_of.idx[k];
            const CSR *cpos = &t->cond.rel[0], *eadd = &t->cond.rel[2];
            int32_t i = lo, j = cpos->off[e], jhi = cpos->off[e + 1];
            while (i < hi || j < jhi) { /* merge two ascending lists */
                int32_t f;
                if (j >= jhi || (i < hi && t->pre.idx[i] < cpos->idx[j])) f = t->pre.idx[i++];
                else if (i >= hi || cpos->idx[j] < t->pre.idx[i]) f = cpos->idx[j++];
                else f = t->pre.idx[i++], j++;
                if (ivec_push(&pres[nops], f)) goto done;
                bit_set(in_pre, f);
            }
            for (int32_t m = eadd->off[e]; m < eadd->off[e + 1]; m++)
                if (!bit_get(in_pre, eadd->idx[m]) && ivec_push(&adds[nops], eadd->idx[m]))
                    goto done;
            for (size_t m = 0; m < pres[nops].n; m++) bit_clear(in_pre, pres[nops].a[m]);
            if (adds[nops].n == 0) {
                pres[nops].n = 0;
                continue;
            }
            r->cost[nops] = t->cost[a];
            r->op_action[nops] = a;
            nops++;
        }
    }
    /* axioms: zero-cost operators with their positive body as precondition (negative bodies
     * are ignored), after the actions, as RelaxedTask.from_task and LMCut.__init__ order them;
     * an axiom whose head is in its own body never adds anything new */
    for (int i = 0; i < t->ax.naxioms; i++) {
        int32_t lo = t->ax.pos.off[i], hi = t->ax.pos.off[i + 1], head = t->ax.head[i];
        int self_support = 0;
        for (int32_t k = lo; k < hi; k++) self_support |= t->ax.pos.idx[k] == head;
        if (self_support) continue;
        for (int32_t k = lo; k < hi; k++)
            if (ivec_push(&pres[nops], t->ax.pos.idx[k])) goto done;
        if (lm && pres[nops].n == 0 && ivec_push(&pres[nops], r->init_fact)) goto done;
        if (ivec_push(&adds[nops], head)) goto done;
        r->cost[nops] = 0;
        r->op_action[nops] = -1;
        nops++;
    }
    if (lm) {
        r->goal_op = nops;
        for (int i = 0; i < t->ngoal; i++)
            if (ivec_push(&pres[nops], t->goal_facts[i])) goto done;
        if (pres[nops].n == 0 && ivec_push(&pres[nops], r->init_fact)) goto done;
        if (ivec_push(&adds[nops], r->goal_fact)) goto done;
        r->cost[nops] = 0;
        r->op_action[nops] = -1;
        nops++;
    }
    r->nops = nops;
    for (int op = 0; op < nops; op++) {
        r->npre[op] = (int32_t)pres[op].n;
        if (pres[op].n == 0) r->no_pre[r->nno_pre++] = op;
        for (size_t i = 0; i < pres[op].n; i++)
            if (ivec_push(&pre_of[pres[op].a[i]], op)) goto done;
        for (size_t i = 0; i < adds[op].n; i++)
            if (ivec_push(&adders[adds[op].a[i]], op)) goto done;
        r->total_adds += adds[op].n;
    }
    if (csr_from_lists(&r->pre, nops, pres) || csr_from_lists(&r->add, nops, adds) ||
        csr_from_lists(&r->pre_of, nf, pre_of) || csr_from_lists(&r->adders, nf, adders))
        goto done;
    rc = 0;
done:
    lists_free(pres, maxops);
    lists_free(adds, maxops);
    lists_free(pre_of, nf);
    lists_free(adders, nf);
    free(in_pre);
    return rc;
}

/* ---------------------------------------------------------------- action selection */

static int any_bit(const CSR *c, int a, const uint64_t *set) {
    for (int32_t i = c->off[a]; i < c->off[a + 1]; i++)
        if (bit_get(set, c->idx[i])) return 1;
    return 0;
}

static uint64_t hash_action(const CTask *t, int a) {
    const CSR *rel[4] = {&t->pre, &t->add, &t->del, &t->neg};
    uint64_t h = 0xCBF29CE484222325ull;
    for (int k = 0; k < 4; k++) {
        for (int32_t i = rel[k]->off[a]; i < rel[k]->off[a + 1]; i++) {
            h ^= (uint64_t)(uint32_t)rel[k]->idx[i];
            h *= 0x100000001B3ull;
        }
        h ^= 0x9E3779B97F4A7C15ull + (uint64_t)k; /* separates the four lists */
        h *= 0x100000001B3ull;
    }
    return h ^ (h >> 29);
}

static int same_action(const CTask *t, int a, int b) {
    const CSR *rel[4] = {&t->pre, &t->add, &t->del, &t->neg};
    for (int k = 0; k < 4; k++) {
        int32_t na = rel[k]->off[a + 1] - rel[k]->off[a];
        if (na != rel[k]->off[b + 1] - rel[k]->off[b]) return 0;
        if (na && memcmp(rel[k]->idx + rel[k]->off[a], rel[k]->idx + rel[k]->off[b],
                         (size_t)na * sizeof(int32_t)))
            return 0;
    }
    return 1;
}

/* With ``prune``: keep only relevant actions (backwards from the goal: an action is relevant
 * when it adds a positive condition, or deletes a negative condition, of the goal or of a
 * relevant action) and one of each group of actions with equal pre/add/del/neg_pre (the
 * cheapest, then the first). Dropping the others from any plan leaves a valid plan that is
 * no more expensive, so optimal costs and every verdict stay the same, while the search
 * stops branching on actions that cannot matter (RADAR's ``update``, an ``alert`` per agent).
 * The relaxation heuristics ignore irrelevant actions anyway, so their values are unchanged.
 */
static int select_actions(CTask *t, int prune) {
    int na = t->nactions, nw = t->nwords;
    t->active = malloc(((size_t)na + 1) * sizeof(uint8_t));
    if (!t->active) return -1;
    /* with axioms, relevance would have to be traced through the axioms' positive and
     * negative bodies: every action stays, and only duplicates are dropped */
    int relevance = prune && t->ax.naxioms == 0 && t->cond.n == 0;
    memset(t->active, relevance ? 0 : 1, (size_t)na + 1);
    t->nactive = na;
    if (!prune) return 0;
    uint64_t *pos = malloc((size_t)nw * sizeof(uint64_t)), *neg = malloc((size_t)nw * sizeof(uint64_t));
    size_t nslots = 16;
    while (nslots < 2 * (size_t)na) nslots *= 2;
    int32_t *slots = malloc(nslots * sizeof(int32_t));
    if (!pos || !neg || !slots) {
        free(pos);
        free(neg);
        free(slots);
        return -1;
    }
    memcpy(pos, t->goal, (size_t)nw * sizeof(uint64_t));
    memcpy(neg, t->goal_neg, (size_t)nw * sizeof(uint64_t));
    for (int changed = relevance; changed;) {
        changed = 0;
        for (int a = 0; a < na; a++) {
            if (t->active[a] || !(any_bit(&t->add, a, pos) || any_bit(&t->del, a, neg)))
                continue;
            t->active[a] = 1;
            changed = 1;
            for (int32_t i = t->pre.off[a]; i < t->pre.off[a + 1]; i++) bit_set(pos, t->pre.idx[i]);
            for (int32_t i = t->neg.off[a]; i < t->neg.off[a + 1]; i++) bit_set(neg, t->neg.idx[i]);
        }
    }
    for (size_t i = 0; i < nslots; i++) slots[i] = -1;
    t->nactive = 0;
    for (int a = 0; a < na; a++) {
        if (!t->active[a]) continue;
        if (t->cond.n && t->eff_of.off[a] < t->eff_of.off[a + 1]) {
            t->nactive++; /* conditional effects are not compared: never a duplicate */
            continue;
        }
        size_t i = hash_action(t, a) & (nslots - 1);
        while (slots[i] >= 0 && !same_action(t, slots[i], a)) i = (i + 1) & (nslots - 1);
        if (slots[i] < 0) {
            slots[i] = a;
            t->nactive++;
        } else if (t->cost[a] < t->cost[slots[i]]) {
            t->active[slots[i]] = 0;
            slots[i] = a;
        } else {
            t->active[a] = 0;
        }
    }
    free(pos);
    free(neg);
    free(slots);
    return 0;
}

/* ---------------------------------------------------------------- the task */

void ctask_free(CTask *t) {
    if (!t) return;
    csr_free(&t->pre);
    csr_free(&t->add);
    csr_free(&t->del);
    csr_free(&t->neg);
    csr_free(&t->bucket);
    free(t->cost);
    free(t->init);
    free(t->goal);
    free(t->goal_neg);
    free(t->goal_facts);
    free(t->always);
    free(t->active);
    relaxed_free(&t->relax);
    relaxed_free(&t->lm);
    axioms_free(&t->ax);
    csr_free(&t->ax_users);
    effects_free(&t->cond);
    csr_free(&t->eff_of);
    free(t);
}

void effects_free(Effects *e) {
    for (int k = 0; k < 4; k++) csr_free(&e->rel[k]);
    free(e->action);
    memset(e, 0, sizeof *e);
}

void axioms_free(Axioms *ax) {
    csr_free(&ax->pos);
    csr_free(&ax->neg);
    free(ax->head);
    free(ax->stratum);
    free(ax->derived);
    memset(ax, 0, sizeof *ax);
}

void ctask_close(const CTask *t, uint64_t *s, int32_t *missing, int32_t *queue) {
    const Axioms *ax = &t->ax;
    if (!ax->derived) return;
    for (int w = 0; w < t->nwords; w++) s[w] &= ~ax->derived[w];
    int lo = 0;
    while (lo < ax->naxioms) {
        int stratum = ax->stratum[lo], hi = lo, nq = 0;
        while (hi < ax->naxioms && ax->stratum[hi] == stratum) hi++;
        /* negative bodies are on basic facts or lower strata, final by now: tested once */
        for (int i = lo; i < hi; i++) {
            int32_t m = 0;
            for (int32_t k = ax->pos.off[i]; k < ax->pos.off[i + 1]; k++)
                m += !bit_get(s, ax->pos.idx[k]);
            for (int32_t k = ax->neg.off[i]; k < ax->neg.off[i + 1]; k++)
                if (bit_get(s, ax->neg.idx[k])) {
                    m = -1;
                    break;
                }
            missing[i] = m;
            if (m == 0) queue[nq++] = i;
        }
        while (nq) {
            int32_t head = ax->head[queue[--nq]];
            if (bit_get(s, head)) continue;
            bit_set(s, head);
            for (int32_t k = t->ax_users.off[head]; k < t->ax_users.off[head + 1]; k++) {
                int32_t user = t->ax_users.idx[k];
                /* only this stratum's counters are live; higher strata use the head once
                 * their turn comes (stratification: no lower stratum uses it) */
                if (user < lo || user >= hi || missing[user] <= 0) continue;
                if (--missing[user] == 0) queue[nq++] = user;
            }
        }
        lo = hi;
    }
}

CTask *ctask_new(int nfacts, int nactions, int nwords, CSR rel[4], const cost_t *costs,
                 const uint64_t *init, const uint64_t *goal, const uint64_t *goal_neg,
                 int prune, Axioms *ax, Effects *cond) {
    CTask *t = calloc(1, sizeof *t);
    if (!t) {
        for (int k = 0; k < 4; k++) csr_free(&rel[k]);
        if (ax) axioms_free(ax);
        if (cond) effects_free(cond);
        return NULL;
    }
    if (ax) {
        t->ax = *ax; /* owned by t now */
        memset(ax, 0, sizeof *ax);
    }
    if (cond) {
        t->cond = *cond;
        memset(cond, 0, sizeof *cond);
    }
    t->pre = rel[0];
    t->add = rel[1];
    t->del = rel[2];
    t->neg = rel[3];
    for (int k = 0; k < 4; k++) rel[k].off = rel[k].idx = NULL; /* owned by t now */
    int ok = 0;
    IVec *buckets = NULL;
    int32_t *uses = NULL;
    IVec goals = {0};
    t->nfacts = nfacts;
    t->nactions = nactions;
    t->nwords = nwords;
    size_t wbytes = (size_t)nwords * sizeof(uint64_t);
    t->cost = malloc(((size_t)nactions + 1) * sizeof(cost_t));
    t->init = malloc(wbytes);
    t->goal = malloc(wbytes);
    t->goal_neg = malloc(wbytes);
    t->always = malloc(((size_t)nactions + 1) * sizeof(int32_t));
    uses = calloc((size_t)nfacts + 1, sizeof(int32_t));
    buckets = lists_new(nfacts);
    if (!t->cost || !t->init || !t->goal || !t->goal_neg || !t->always || !uses || !buckets)
        goto done;
    memcpy(t->init, init, wbytes);
    memcpy(t->goal, goal, wbytes);
    memcpy(t->goal_neg, goal_neg, wbytes);
    if (nactions) memcpy(t->cost, costs, (size_t)nactions * sizeof(cost_t));
    t->min_cost = 0;
    for (int a = 0; a < nactions; a++)
        if (a == 0 || costs[a] < t->min_cost) t->min_cost = costs[a];
    if (t->cond.n) { /* each action's effects (cond.action is ascending) */
        IVec *of = lists_new(nactions);
        int failed = !of;
        for (int e = 0; !failed && e < t->cond.n; e++) failed = ivec_push(&of[t->cond.action[e]], e);
        failed = failed || csr_from_lists(&t->eff_of, nactions, of);
        lists_free(of, nactions);
        if (failed) goto done;
    }
    if (select_actions(t, prune)) goto done;
    if (mask_bits(goal, nwords, &goals)) goto done;
    t->ngoal = (int)goals.n;
    t->goal_facts = malloc((goals.n + 1) * sizeof(int32_t));
    if (!t->goal_facts) goto done;
    if (goals.n) memcpy(t->goal_facts, goals.a, goals.n * sizeof(int32_t));

    /* successor generator, as Successors.__init__: key = least-used precondition */
    for (int a = 0; a < nactions; a++)
        for (int32_t i = t->pre.off[a]; i < t->pre.off[a + 1]; i++) uses[t->pre.idx[i]]++;
    for (int a = 0; a < nactions; a++) {
        int32_t lo = t->pre.off[a], hi = t->pre.off[a + 1];
        if (!t->active[a]) continue;
        if (lo == hi) {
            t->always[t->nalways++] = a;
            continue;
        }
        int32_t key = t->pre.idx[lo];
        for (int32_t i = lo + 1; i < hi; i++)
            if (uses[t->pre.idx[i]] < uses[key]) key = t->pre.idx[i];
        if (ivec_push(&buckets[key], a)) goto done;
    }
    if (csr_from_lists(&t->bucket, nfacts, buckets)) goto done;
    if (t->ax.naxioms) {
        IVec *users = lists_new(nfacts);
        int failed = !users;
        for (int i = 0; !failed && i < t->ax.naxioms; i++)
            for (int32_t k = t->ax.pos.off[i]; !failed && k < t->ax.pos.off[i + 1]; k++)
                failed = ivec_push(&users[t->ax.pos.idx[k]], i);
        failed = failed || csr_from_lists(&t->ax_users, nfacts, users);
        lists_free(users, nfacts);
        if (failed) goto done;
    }
    if (relaxed_build(&t->relax, t, 0) || relaxed_build(&t->lm, t, 1)) goto done;
    ok = 1;
done:
    lists_free(buckets, nfacts);
    free(uses);
    ivec_free(&goals);
    if (!ok) {
        ctask_free(t);
        return NULL;
    }
    return t;
}

int ctask_goal_facts_hold(const CTask *t, const uint64_t *s) {
    for (int w = 0; w < t->nwords; w++)
        if ((s[w] & t->goal[w]) != t->goal[w]) return 0;
    return 1;
}

int ctask_is_goal(const CTask *t, const uint64_t *s) {
    for (int w = 0; w < t->nwords; w++)
        if ((s[w] & t->goal[w]) != t->goal[w] || (s[w] & t->goal_neg[w])) return 0;
    return 1;
}

static inline int applicable(const CTask *t, const uint64_t *s, int a) {
    for (int32_t i = t->pre.off[a]; i < t->pre.off[a + 1]; i++)
        if (!bit_get(s, t->pre.idx[i])) return 0;
    for (int32_t i = t->neg.off[a]; i < t->neg.off[a + 1]; i++)
        if (bit_get(s, t->neg.idx[i])) return 0;
    return 1;
}

static int cmp_i32(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

int ctask_applicable(const CTask *t, const uint64_t *s, int32_t *out) {
    int n = 0;
    for (int i = 0; i < t->nalways; i++)
        if (applicable(t, s, t->always[i])) out[n++] = t->always[i];
    for (int w = 0; w < t->nwords; w++) {
        uint64_t x = s[w];
        while (x) {
            int f = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (f >= t->nfacts) break;
            for (int32_t i = t->bucket.off[f]; i < t->bucket.off[f + 1]; i++)
                if (applicable(t, s, t->bucket.idx[i])) out[n++] = t->bucket.idx[i];
        }
    }
    /* ascending action index, as the Python generator returns them */
    if (n > 1) {
        int sorted = 1;
        for (int i = 1; i < n && sorted; i++) sorted = out[i - 1] < out[i];
        if (!sorted) qsort(out, (size_t)n, sizeof(int32_t), cmp_i32);
    }
    return n;
}
