/* The landmark-cut heuristic (Helmert & Domshlak 2009), mirroring
 * xaip.planning.heuristics.lmcut step by step: a first full h_max exploration that sets each
 * operator's precondition choice function (pcf) to the precondition settled last, then
 * rounds of (goal zone through zero-cost justification edges, cut = candidates whose pcf is
 * in N0, subtract the cut's minimum cost, update h_max incrementally).
 *
 * Why mirror rather than re-derive: LM-cut's value depends on pcf tie-breaking. With the same
 * heap order, operator order and justification-list order, the value equals the Python
 * reference's, so the two implementations check each other. Licence: MIT (part of xaip).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

enum { K_UNKNOWN = 0, K_TRUE = 1, K_FALSE = 2 };

/* Tests only (tests/reconcile/test_certified_checker.py builds a core with it): a faulty
 * certificate, 1 = every cut over-charged by one, 2 = every cut of two or more actions
 * recorded without its first, so that the checker's rejection of them can be seen. */
#ifndef XAIP_LMCUT_FAULT
#define XAIP_LMCUT_FAULT 0
#endif

struct LMWork {
    const Relaxed *r;
    const CTask *t;
    cost_t *hmax, *cost;
    int32_t *pcf, *unsat, *visited, *stack, *vlist;
    uint8_t *zone, *known, *in_cut;
    IVec *children; /* per fact: operators whose pcf it is */
    IVec candidates, cut;
    int32_t stamp;
    int oom;
    PairHeap heap;
    CutList *record; /* lm_export: each cut and its charge recorded here (certify.c) */
};

void lm_export(LMWork *w, CutList *out) { w->record = out; }

LMWork *lm_work_new(const Relaxed *r, const CTask *t) {
    LMWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    size_t nf = (size_t)r->nfacts + 1, nops = (size_t)r->nops + 1;
    w->r = r;
    w->t = t;
    w->hmax = malloc(nf * sizeof(cost_t));
    w->cost = malloc(nops * sizeof(cost_t));
    w->pcf = malloc(nops * sizeof(int32_t));
    w->unsat = malloc(nops * sizeof(int32_t));
    w->visited = calloc(nf, sizeof(int32_t));
    w->stack = malloc(nf * sizeof(int32_t));
    w->vlist = malloc(nf * sizeof(int32_t));
    w->zone = malloc(nf);
    w->known = malloc(nf);
    w->in_cut = calloc(nops, 1);
    w->children = calloc(nf, sizeof(IVec));
    if (!w->hmax || !w->cost || !w->pcf || !w->unsat || !w->visited || !w->stack ||
        !w->vlist || !w->zone || !w->known || !w->in_cut || !w->children) {
        lm_work_free(w);
        return NULL;
    }
    return w;
}

void lm_work_free(LMWork *w) {
    if (!w) return;
    if (w->children)
        for (int f = 0; f < w->r->nfacts; f++) ivec_free(&w->children[f]);
    free(w->children);
    free(w->hmax);
    free(w->cost);
    free(w->pcf);
    free(w->unsat);
    free(w->visited);
    free(w->stack);
    free(w->vlist);
    free(w->zone);
    free(w->known);
    free(w->in_cut);
    ivec_free(&w->candidates);
    ivec_free(&w->cut);
    pheap_free(&w->heap);
    free(w);
}

static inline void relax_adds(LMWork *w, int op, cost_t nv) {
    const Relaxed *r = w->r;
    for (int32_t j = r->add.off[op]; j < r->add.off[op + 1]; j++) {
        int32_t added = r->add.idx[j];
        if (nv < w->hmax[added]) {
            w->hmax[added] = nv;
            pheap_push(&w->heap, nv, added);
        }
    }
}

/* LMCut._in_n0: is ``fact`` reachable backwards from a low fact without entering the zone? */
static int in_n0(LMWork *w, int32_t fact, cost_t goal_value) {
    if (w->known[fact] != K_UNKNOWN) return w->known[fact] == K_TRUE;
    const Relaxed *r = w->r;
    if (++w->stamp == INT32_MAX) {
        memset(w->visited, 0, (size_t)r->nfacts * sizeof(int32_t));
        w->stamp = 1;
    }
    int32_t stamp = w->stamp;
    int top = 0, nv = 0;
    w->visited[fact] = stamp;
    w->vlist[nv++] = fact;
    w->stack[top++] = fact;
    while (top) {
        int32_t current = w->stack[--top];
        for (int32_t k = r->adders.off[current]; k < r->adders.off[current + 1]; k++) {
            int32_t source = w->pcf[r->adders.idx[k]];
            if (source < 0 || w->zone[source] || w->visited[source] == stamp) continue;
            if (w->hmax[source] < goal_value || w->known[source] == K_TRUE) {
                w->known[fact] = K_TRUE;
                return 1;
            }
            if (w->known[source] == K_FALSE) continue;
            w->visited[source] = stamp;
            w->vlist[nv++] = source;
            w->stack[top++] = source;
        }
    }
    for (int i = 0; i < nv; i++) w->known[w->vlist[i]] = K_FALSE;
    return 0;
}

static cost_t lmcut(LMWork *w, const uint64_t *s) {
    const Relaxed *r = w->r;
    const CTask *t = w->t;
    int nf = r->nfacts, nops = r->nops, goal_fact = r->goal_fact;
    PairHeap *heap = &w->heap;
    heap->n = 0;
    heap->oom = 0;
    w->oom = 0;
    memcpy(w->cost, r->cost, (size_t)nops * sizeof(cost_t));
    memcpy(w->unsat, r->npre, (size_t)nops * sizeof(int32_t));
    for (int op = 0; op < nops; op++) w->pcf[op] = -1;
    for (int f = 0; f < nf; f++) w->hmax[f] = COST_INF;

    /* first exploration: full h_max, pcf = the precondition settled last */
    for (int wd = 0; wd < t->nwords; wd++) {
        uint64_t x = s[wd];
        while (x) {
            int f = wd * 64 + __builtin_ctzll(x);
            x &= x - 1;
            w->hmax[f] = 0;
            pheap_push(heap, 0, f);
        }
    }
    w->hmax[r->init_fact] = 0;
    pheap_push(heap, 0, r->init_fact);
    while (heap->n) {
        Pair p = pheap_pop(heap);
        if (p.v > w->hmax[p.f]) continue;
        for (int32_t k = r->pre_of.off[p.f]; k < r->pre_of.off[p.f + 1]; k++) {
            int32_t op = r->pre_of.idx[k];
            if (--w->unsat[op]) continue;
            w->pcf[op] = p.f;
            relax_adds(w, op, p.v + w->cost[op]);
        }
    }
    if (heap->oom) return COST_OOM;
    if (w->hmax[goal_fact] == COST_INF) return COST_INF;
    for (int f = 0; f < nf; f++) w->children[f].n = 0;
    for (int op = 0; op < nops; op++)
        if (w->pcf[op] >= 0 && ivec_push(&w->children[w->pcf[op]], op)) return COST_OOM;

    cost_t h = 0;
    while (w->hmax[goal_fact] > 0) {
        /* goal zone: backwards from GOAL through zero-cost justification edges */
        memset(w->zone, 0, (size_t)nf);
        w->zone[goal_fact] = 1;
        int top = 0;
        w->stack[top++] = goal_fact;
        w->candidates.n = 0;
        while (top) {
            int32_t fact = w->stack[--top];
            for (int32_t k = r->adders.off[fact]; k < r->adders.off[fact + 1]; k++) {
                int32_t op = r->adders.idx[k];
                int32_t chosen = w->pcf[op];
                if (chosen < 0) continue;
                if (w->cost[op]) {
                    if (ivec_push(&w->candidates, op)) return COST_OOM;
                } else if (!w->zone[chosen]) {
                    w->zone[chosen] = 1;
                    w->stack[top++] = chosen;
                }
            }
        }
        /* the cut: candidates whose pcf lies in N0 */
        cost_t goal_value = w->hmax[goal_fact];
        memset(w->known, K_UNKNOWN, (size_t)nf);
        w->cut.n = 0;
        for (size_t i = 0; i < w->candidates.n; i++) {
            int32_t op = w->candidates.a[i];
            int32_t chosen = w->pcf[op];
            if (w->zone[chosen] || w->in_cut[op]) continue;
            if (w->hmax[chosen] >= goal_value && !in_n0(w, chosen, goal_value)) continue;
            w->in_cut[op] = 1;
            if (ivec_push(&w->cut, op)) return COST_OOM;
        }
        if (w->cut.n == 0) return COST_OOM; /* cannot happen on a consistent state */
        cost_t m = COST_INF;
        for (size_t i = 0; i < w->cut.n; i++)
            if (w->cost[w->cut.a[i]] < m) m = w->cost[w->cut.a[i]];
        h += m;
        if (w->record) {
            size_t skip = XAIP_LMCUT_FAULT == 2 && w->cut.n > 1;
            if (cutlist_add(w->record, w->cut.a + skip, w->cut.n - skip, r->op_action,
                            m + (XAIP_LMCUT_FAULT == 1)))
                return COST_OOM;
        }

        /* reduce costs and update h_max incrementally (values only decrease) */
        heap->n = 0;
        for (size_t i = 0; i < w->cut.n; i++) {
            int32_t op = w->cut.a[i];
            w->in_cut[op] = 0;
            w->cost[op] -= m;
            relax_adds(w, op, w->hmax[w->pcf[op]] + w->cost[op]);
        }
        while (heap->n) {
            Pair p = pheap_pop(heap);
            int32_t fact = p.f;
            cost_t value = p.v;
            if (value > w->hmax[fact]) continue;
            IVec *kids = &w->children[fact];
            size_t keep = 0;
            for (size_t i = 0; i < kids->n; i++) {
                int32_t op = kids->a[i];
                int32_t best = fact;
                cost_t best_value = value;
                for (int32_t k = r->pre.off[op]; k < r->pre.off[op + 1]; k++) {
                    int32_t pre = r->pre.idx[k];
                    if (w->hmax[pre] > best_value) {
                        best_value = w->hmax[pre];
                        best = pre;
                    }
                }
                if (best != fact) {
                    w->pcf[op] = best;
                    if (ivec_push(&w->children[best], op)) return COST_OOM;
                    kids = &w->children[fact]; /* (distinct list; pointer kept for clarity) */
                } else {
                    kids->a[keep++] = op;
                }
                relax_adds(w, op, best_value + w->cost[op]);
            }
            kids->n = keep;
        }
        if (heap->oom) return COST_OOM;
    }
    return h;
}

cost_t lm_eval(LMWork *w, const uint64_t *s) {
    if (ctask_goal_facts_hold(w->t, s)) return 0;
    return lmcut(w, s);
}
