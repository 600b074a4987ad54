/* h_max, h_add and h_FF over one relaxed exploration (generalised Dijkstra).
 *
 * Why a line-by-line mirror of xaip.planning.heuristics.relaxation.explore: h_max and h_add
 * are unique fixpoints, but h_FF depends on which best supporter wins a tie. Using the same
 * heap order ((cost, fact) pairs), the same operator order and the same strict "<" update,
 * the relaxed plan and so h_FF are the Python reference's, which the differential tests
 * check state by state. Licence: MIT (part of xaip).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

struct RelaxWork {
    const Relaxed *r;
    const CTask *t;
    cost_t *cost, *acc;
    int32_t *unsat, *supporter, *stack;
    uint8_t *is_goal, *used, *charged;
    uint64_t *seen;
    int32_t *used_list;
    PairHeap heap;
    /* h_max's bucket queue (see explore_hmax): NULL when costs are too large for it */
    int32_t *bucket_head, *entry_fact, *entry_next;
    int nbuckets;
    size_t nentries;
};

/* h_max uses a circular bucket queue when the largest operator cost is below this */
#define HMAX_MAX_BUCKETS 4096

RelaxWork *relax_work_new(const Relaxed *r, const CTask *t) {
    RelaxWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    size_t nf = (size_t)r->nfacts + 1, nops = (size_t)r->nops + 1;
    w->r = r;
    w->t = t;
    w->cost = malloc(nf * sizeof(cost_t));
    w->acc = malloc(nops * sizeof(cost_t));
    w->unsat = malloc(nops * sizeof(int32_t));
    w->supporter = malloc(nf * sizeof(int32_t));
    w->stack = malloc(nf * sizeof(int32_t));
    w->is_goal = calloc(nf, 1);
    w->used = calloc(nops, 1);
    w->charged = calloc((size_t)t->nactions + 1, 1);
    w->used_list = malloc(nops * sizeof(int32_t));
    w->seen = malloc((size_t)t->nwords * sizeof(uint64_t));
    if (!w->cost || !w->acc || !w->unsat || !w->supporter || !w->stack || !w->is_goal ||
        !w->used || !w->used_list || !w->seen || !w->charged) {
        relax_work_free(w);
        return NULL;
    }
    for (int i = 0; i < t->ngoal; i++) w->is_goal[t->goal_facts[i]] = 1;
    cost_t max_cost = 0;
    for (int op = 0; op < r->nops; op++)
        if (r->cost[op] > max_cost) max_cost = r->cost[op];
    if (max_cost < HMAX_MAX_BUCKETS) {
        /* each fact enters once as true, then at most once per (operator, add) pair */
        w->nbuckets = (int)max_cost + 1;
        w->nentries = nf + r->total_adds + 1;
        w->bucket_head = malloc((size_t)w->nbuckets * sizeof(int32_t));
        w->entry_fact = malloc(w->nentries * sizeof(int32_t));
        w->entry_next = malloc(w->nentries * sizeof(int32_t));
        if (!w->bucket_head || !w->entry_fact || !w->entry_next) {
            relax_work_free(w);
            return NULL;
        }
    }
    return w;
}

void relax_work_free(RelaxWork *w) {
    if (!w) return;
    free(w->cost);
    free(w->acc);
    free(w->unsat);
    free(w->supporter);
    free(w->stack);
    free(w->is_goal);
    free(w->used);
    free(w->charged);
    free(w->used_list);
    free(w->seen);
    free(w->bucket_head);
    free(w->entry_fact);
    free(w->entry_next);
    pheap_free(&w->heap);
    free(w);
}

static inline cost_t add_sat(cost_t a, cost_t b) {
    return (a >= COST_INF - b) ? COST_INF - 1 : a + b;
}

/* explore(rt, state, additive, supporters, stop_at_goal=True); returns -1 when out of memory */
static int explore(RelaxWork *w, const uint64_t *s, int additive) {
    const Relaxed *r = w->r;
    const CTask *t = w->t;
    int nf = r->nfacts;
    for (int f = 0; f < nf; f++) {
        w->cost[f] = COST_INF;
        w->supporter[f] = -1;
    }
    memcpy(w->unsat, r->npre, (size_t)r->nops * sizeof(int32_t));
    memset(w->acc, 0, (size_t)r->nops * sizeof(cost_t));
    PairHeap *h = &w->heap;
    h->n = 0;
    h->oom = 0;
    for (int wd = 0; wd < t->nwords; wd++) {
        uint64_t x = s[wd];
        while (x) {
            int f = wd * 64 + __builtin_ctzll(x);
            x &= x - 1;
            w->cost[f] = 0;
            pheap_push(h, 0, f);
        }
    }
    for (int i = 0; i < r->nno_pre; i++) {
        int op = r->no_pre[i];
        cost_t value = r->cost[op];
        for (int32_t k = r->add.off[op]; k < r->add.off[op + 1]; k++) {
            int32_t f = r->add.idx[k];
            if (value < w->cost[f]) {
                w->cost[f] = value;
                w->supporter[f] = op;
                pheap_push(h, value, f);
            }
        }
    }
    int left = 0;
    for (int i = 0; i < t->ngoal; i++) left += !bit_get(s, t->goal_facts[i]);
    if (!left) return h->oom ? -1 : 0;
    while (h->n) {
        Pair p = pheap_pop(h);
        int32_t f = p.f;
        cost_t value = p.v;
        if (value > w->cost[f]) continue;
        if (w->is_goal[f] && !bit_get(s, f) && --left == 0) break;
        for (int32_t k = r->pre_of.off[f]; k < r->pre_of.off[f + 1]; k++) {
            int32_t op = r->pre_of.idx[k];
            if (additive)
                w->acc[op] = add_sat(w->acc[op], value);
            else if (value > w->acc[op])
                w->acc[op] = value;
            if (--w->unsat[op]) continue;
            cost_t nv = add_sat(w->acc[op], r->cost[op]);
            for (int32_t j = r->add.off[op]; j < r->add.off[op + 1]; j++) {
                int32_t added = r->add.idx[j];
                if (nv < w->cost[added]) {
                    w->cost[added] = nv;
                    w->supporter[added] = op;
                    pheap_push(h, nv, added);
                }
            }
        }
    }
    return h->oom ? -1 : 0;
}

/* h_max alone (the checker's UCS evaluates it on every new state): the same fixpoint as
 * explore(w, s, 0), but with a circular bucket queue instead of the binary heap. Why this
 * is exact: h_max gives each fact max(preconditions) + cost, so every value pushed lies in
 * [current, current + max cost] and nbuckets = max cost + 1 slots never collide. The order
 * of facts within a value differs from the heap's, which changes supporters on ties but not
 * values (h_max is the unique fixpoint); h_FF, which reads supporters, keeps the heap. */
static void explore_hmax(RelaxWork *w, const uint64_t *s) {
    const Relaxed *r = w->r;
    const CTask *t = w->t;
    int nf = r->nfacts, nb = w->nbuckets;
    int32_t *head = w->bucket_head, *efact = w->entry_fact, *enext = w->entry_next;
    size_t used = 0, pending = 0;
    for (int f = 0; f < nf; f++) w->cost[f] = COST_INF;
    for (int b = 0; b < nb; b++) head[b] = -1;
    memcpy(w->unsat, r->npre, (size_t)r->nops * sizeof(int32_t));
    memset(w->acc, 0, (size_t)r->nops * sizeof(cost_t));
#define HMAX_PUSH(value, fact)                                  \
    do {                                                        \
        int b_ = (int)((value) % nb);                           \
        efact[used] = (fact);                                   \
        enext[used] = head[b_];                                 \
        head[b_] = (int32_t)used++;                             \
        pending++;                                              \
    } while (0)
    for (int wd = 0; wd < t->nwords; wd++) {
        uint64_t x = s[wd];
        while (x) {
            int f = wd * 64 + __builtin_ctzll(x);
            x &= x - 1;
            w->cost[f] = 0;
            HMAX_PUSH(0, f);
        }
    }
    for (int i = 0; i < r->nno_pre; i++) {
        int op = r->no_pre[i];
        cost_t value = r->cost[op];
        for (int32_t k = r->add.off[op]; k < r->add.off[op + 1]; k++) {
            int32_t f = r->add.idx[k];
            if (value < w->cost[f]) {
                w->cost[f] = value;
                HMAX_PUSH(value, f);
            }
        }
    }
    int left = 0;
    for (int i = 0; i < t->ngoal; i++) left += !bit_get(s, t->goal_facts[i]);
    cost_t cur = 0;
    while (left && pending) {
        int b = (int)(cur % nb);
        int32_t e = head[b];
        if (e < 0) {
            cur++;
            continue;
        }
        head[b] = enext[e];
        pending--;
        int32_t f = efact[e];
        if (w->cost[f] != cur) continue; /* superseded by a cheaper entry */
        if (w->is_goal[f] && !bit_get(s, f) && --left == 0) break;
        for (int32_t k = r->pre_of.off[f]; k < r->pre_of.off[f + 1]; k++) {
            int32_t op = r->pre_of.idx[k];
            if (cur > w->acc[op]) w->acc[op] = cur;
            if (--w->unsat[op]) continue;
            cost_t nv = w->acc[op] + r->cost[op];
            for (int32_t j = r->add.off[op]; j < r->add.off[op + 1]; j++) {
                int32_t added = r->add.idx[j];
                if (nv < w->cost[added]) {
                    w->cost[added] = nv;
                    HMAX_PUSH(nv, added);
                }
            }
        }
    }
#undef HMAX_PUSH
}

/* HFF.relaxed_plan: the operators of the relaxed plan read off the best supporters from
 * the goals unmet in ``s`` (explored, every goal reachable), each listed once in
 * ``w->used_list`` in the order first reached; returns how many. The caller clears their
 * ``w->used`` marks. Shared by the cost (h_FF) and the preferred operators, so both read
 * the same plan. */
static int relaxed_plan_ops(RelaxWork *w, const uint64_t *s) {
    const Relaxed *r = w->r;
    const CTask *t = w->t;
    memcpy(w->seen, s, (size_t)t->nwords * sizeof(uint64_t));
    int top = 0, nused = 0;
    for (int i = 0; i < t->ngoal; i++) {
        int32_t f = t->goal_facts[i];
        if (!bit_get(s, f)) {
            w->stack[top++] = f;
            bit_set(w->seen, f);
        }
    }
    while (top) {
        int32_t op = w->supporter[w->stack[--top]];
        if (!w->used[op]) {
            w->used[op] = 1;
            w->used_list[nused++] = op;
        }
        for (int32_t k = r->pre.off[op]; k < r->pre.off[op + 1]; k++) {
            int32_t pre = r->pre.idx[k];
            if (!bit_get(w->seen, pre)) {
                bit_set(w->seen, pre);
                w->stack[top++] = pre;
            }
        }
    }
    return nused;
}

static int goals_reachable(const RelaxWork *w) {
    const CTask *t = w->t;
    for (int i = 0; i < t->ngoal; i++)
        if (w->cost[t->goal_facts[i]] == COST_INF) return 0;
    return 1;
}

/* HFF.evaluate: the cost of the relaxed plan's actions, each charged once (an action whose
 * conditional effects give several operators is paid once, as FF does; axioms cost 0). */
static cost_t relaxed_plan_cost(RelaxWork *w, const uint64_t *s) {
    if (!goals_reachable(w)) return COST_INF;
    int nused = relaxed_plan_ops(w, s);
    cost_t total = 0;
    const int32_t *op_action = w->r->op_action;
    for (int i = 0; i < nused; i++) {
        int32_t op = w->used_list[i], a = op_action[op];
        if (a >= 0 && !w->charged[a]) {
            w->charged[a] = 1;
            total = add_sat(total, w->r->cost[op]);
        }
    }
    for (int i = 0; i < nused; i++) {
        int32_t op = w->used_list[i], a = op_action[op];
        if (a >= 0) w->charged[a] = 0;
        w->used[op] = 0;
    }
    return total;
}

int relax_preferred(RelaxWork *w, const uint64_t *s, uint8_t *mark, int32_t *marked) {
    if (ctask_goal_facts_hold(w->t, s)) return 0;
    if (explore(w, s, 1)) return -1;
    if (!goals_reachable(w)) return 0;
    int nused = relaxed_plan_ops(w, s), n = 0;
    for (int i = 0; i < nused; i++) {
        int32_t op = w->used_list[i];
        int32_t a = w->r->op_action[op];
        w->used[op] = 0;
        if (a >= 0 && !mark[a]) {
            mark[a] = 1;
            marked[n++] = a;
        }
    }
    return n;
}

cost_t relax_eval(RelaxWork *w, const uint64_t *s, int kind) {
    const CTask *t = w->t;
    if (ctask_goal_facts_hold(t, s)) return 0;
    if (kind == H_HMAX && w->bucket_head)
        explore_hmax(w, s);
    else if (explore(w, s, kind != H_HMAX))
        return COST_OOM;
    if (kind == H_HFF) return relaxed_plan_cost(w, s);
    cost_t h = 0;
    for (int i = 0; i < t->ngoal; i++) {
        cost_t c = w->cost[t->goal_facts[i]];
        if (c == COST_INF) return COST_INF;
        if (kind == H_HMAX) {
            if (c > h) h = c;
        } else {
            h = add_sat(h, c);
        }
    }
    return h;
}
