/* Best-first search (A*, uniform-cost, greedy) over bitset states.
 *
 * Mirrors xaip.planning.search.astar.best_first: priority (w_g * g + w_h * h, h, insertion
 * counter), goal test when a node is popped, one budget node charged per expansion,
 * re-opening of states reached more cheaply (always for A* and UCS, for GBFS only under
 * a cost bound), pruning of g >= bound and, with an admissible heuristic, g + h >= bound.
 *
 * Why a state table of its own: states are interned once (bitset words in one array, an
 * open-addressing hash table of tagged ids), and g, h and the parent link live in parallel
 * arrays indexed by id, so duplicate detection costs one hash and one comparison of words,
 * and the memory used is known exactly (the memory cap of the budget). Successors are
 * generated in batches whose table slots are prefetched, because at millions of states
 * (the checker's uniform-cost proofs) the table's cache misses dominate.
 *
 * Preferred operators (GBFS with h_FF, as xaip.planning.search.preferred): children reached
 * by an action of the parent's relaxed plan also enter a second open list; pops alternate
 * between the lists by priority counters (the lower counter goes, ties to the main list,
 * each pop adds one), and every new best h found lowers the preferred list's counter by
 * BOOST, so the search follows helpful actions while they make progress.
 * Licence: MIT (part of xaip).
 */
#define _POSIX_C_SOURCE 199309L
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define G_UNSET INT64_MAX
#define BATCH 32 /* successors generated before their table look-ups */
#define H_CAP ((cost_t)1 << 62) /* g stays below 2^62 (costs are checked in Python) */
#define BOOST 1000 /* priority bonus of the preferred list on progress (Fast Downward's lazy default) */

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- heuristics */

struct HeurWork {
    const CTask *t;
    int kind;
    RelaxWork *relax;
    LMWork *lm;
    /* H_CERTIFIED: LM-cut records its cuts in ``cuts``, certify.c checks them, h_max
     * (``relax``) answers for a state whose certificate fails */
    CertWork *cert;
    CutList cuts;
    int64_t certified, rejected;
};

HeurWork *heur_new(const CTask *t, int kind) {
    HeurWork *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->t = t;
    /* LM-cut does not handle conditional effects (one action's cost charged to several
     * unary operators breaks its landmark argument): h_max instead, as LMCut.fallback */
    if ((kind == H_LMCUT || kind == H_CERTIFIED) && t->cond.n) kind = H_HMAX;
    w->kind = kind;
    if (kind == H_HMAX || kind == H_HADD || kind == H_HFF || kind == H_CERTIFIED) {
        w->relax = relax_work_new(&t->relax, t);
        if (!w->relax) goto fail;
    }
    if (kind == H_LMCUT || kind == H_CERTIFIED) {
        w->lm = lm_work_new(&t->lm, t);
        if (!w->lm) goto fail;
    }
    if (kind == H_CERTIFIED) {
        w->cert = cert_work_new(t);
        if (!w->cert) goto fail;
        lm_export(w->lm, &w->cuts);
    }
    return w;
fail:
    heur_free(w);
    return NULL;
}

void heur_free(HeurWork *w) {
    if (!w) return;
    relax_work_free(w->relax);
    lm_work_free(w->lm);
    cert_work_free(w->cert);
    cutlist_free(&w->cuts);
    free(w);
}

/* LM-cut as an untrusted oracle: its value counts only when certify.c accepts its cuts */
static cost_t certified_eval(HeurWork *w, const uint64_t *s) {
    cutlist_clear(&w->cuts);
    cost_t claimed = lm_eval(w->lm, s), value;
    if (claimed == COST_OOM) return COST_OOM;
    int64_t where;
    if (cert_verify(w->cert, s, &w->cuts, claimed == COST_INF, &value, &where) == CERT_OK) {
        w->certified++;
        return value;
    }
    w->rejected++;
    return relax_eval(w->relax, s, H_HMAX);
}

void heur_certificates(const HeurWork *w, int64_t *certified, int64_t *rejected) {
    *certified = w ? w->certified : 0;
    *rejected = w ? w->rejected : 0;
}

cost_t heur_eval(HeurWork *w, const uint64_t *s) {
    switch (w->kind) {
    case H_BLIND:
        return ctask_is_goal(w->t, s) ? 0 : w->t->min_cost;
    case H_LMCUT:
        return lm_eval(w->lm, s);
    case H_CERTIFIED:
        return certified_eval(w, s);
    default:
        return relax_eval(w->relax, s, w->kind);
    }
}

int heur_preferred(HeurWork *w, const uint64_t *s, uint8_t *mark, int32_t *marked) {
    if (w->kind != H_HFF) return -1;
    return relax_preferred(w->relax, s, mark, marked);
}

/* ---------------------------------------------------------------- state table */

typedef struct {
    int nwords;
    size_t count, cap, nslots;
    uint64_t *words, *hash;
    cost_t *g, *h;
    cost_t *closed; /* preferred-operator search only: g at expansion (G_UNSET: never) */
    int track_closed;
    uint32_t *parent;
    int32_t *action;
    /* 0: empty, else (hash >> 32) << 32 | (id + 1): the high half of the hash is a tag, so
     * a probe that meets another state is rejected without touching that state's words */
    uint64_t *slots;
} Table;

#define TAG_MASK 0xFFFFFFFF00000000ull

/* states are a few words: an inline loop beats a call to memcmp */
static inline int words_equal(const uint64_t *a, const uint64_t *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static uint64_t hash_words(const uint64_t *s, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

static size_t table_bytes(const Table *t) {
    return t->cap * ((size_t)t->nwords * 8 + 8 + 8 + 8 + 4 + 4 + (t->track_closed ? 8 : 0)) +
           t->nslots * 8;
}

static void table_free(Table *t) {
    free(t->words);
    free(t->hash);
    free(t->g);
    free(t->h);
    free(t->closed);
    free(t->parent);
    free(t->action);
    free(t->slots);
}

#define GROW(field, cap)                                                  \
    do {                                                                  \
        void *p_ = realloc(t->field, (cap) * sizeof *t->field);           \
        if (!p_) return -1;                                               \
        t->field = p_;                                                    \
    } while (0)

static int table_grow_states(Table *t) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    void *p = realloc(t->words, cap * (size_t)t->nwords * sizeof(uint64_t));
    if (!p) return -1;
    t->words = p;
    GROW(hash, cap);
    GROW(g, cap);
    GROW(h, cap);
    if (t->track_closed) GROW(closed, cap);
    GROW(parent, cap);
    GROW(action, cap);
    t->cap = cap;
    return 0;
}

static int table_rehash(Table *t) {
    size_t n = t->nslots ? 2 * t->nslots : 2048;
    uint64_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    for (size_t id = 0; id < t->count; id++) {
        size_t i = t->hash[id] & (n - 1);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = (t->hash[id] & TAG_MASK) | ((uint64_t)id + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    return 0;
}

/* The id of state ``s`` with hash ``hv`` (inserted with g unset if new; *is_new says which); -1 when out of
 * memory. */
static int64_t table_intern(Table *t, const uint64_t *s, uint64_t hv, int *is_new) {
    if (2 * (t->count + 1) > t->nslots && table_rehash(t)) return -1;
    size_t mask = t->nslots - 1, i = hv & mask;
    size_t wb = (size_t)t->nwords * sizeof(uint64_t);
    uint64_t tag = hv & TAG_MASK;
    while (t->slots[i]) {
        uint64_t slot = t->slots[i];
        uint32_t id = (uint32_t)slot - 1;
        if ((slot & TAG_MASK) == tag && words_equal(t->words + (size_t)id * t->nwords, s, t->nwords)) {
            *is_new = 0;
            return id;
        }
        i = (i + 1) & mask;
    }
    if (t->count == t->cap && table_grow_states(t)) return -1;
    if (t->count >= UINT32_MAX - 1) return -1;
    size_t id = t->count++;
    memcpy(t->words + id * t->nwords, s, wb);
    t->hash[id] = hv;
    t->g[id] = G_UNSET;
    t->h[id] = 0;
    if (t->track_closed) t->closed[id] = G_UNSET;
    t->parent[id] = UINT32_MAX;
    t->action[id] = -1;
    t->slots[i] = tag | ((uint64_t)id + 1);
    *is_new = 1;
    return (int64_t)id;
}

/* ---------------------------------------------------------------- open list */

typedef struct {
    cost_t f, h, g;
    uint64_t counter;
    uint32_t id;
} Node;

/* The open list: a binary heap, or (under a small cost bound, with f = g + h or g) one
 * FIFO list per key f * width + h. Both pop in (f, h, counter) order: the counter grows
 * with every push, so a FIFO list keeps it ascending. The bucket lists cost O(1) per
 * push and pop instead of O(log n) on 40-byte nodes. */
typedef struct {
    Node *a;
    size_t n, cap; /* live nodes; allocated slots of a (heap, or the buckets' node pool) */
    size_t width, nkeys, cursor, used;
    int64_t *next, *head, *tail; /* bucket mode: lists of slots of a, -1 ends */
    int64_t free_slot;          /* popped slots, linked through next */
} Open;

#define MAX_BUCKET_BOUND 512

/* Bucket mode needs every f and h in [0, bound): A* or UCS with admissible pruning. */
static int open_use_buckets(Open *o, cost_t bound) {
    o->width = (size_t)bound;
    o->nkeys = o->width * o->width;
    o->head = malloc(o->nkeys * sizeof(int64_t));
    o->tail = malloc(o->nkeys * sizeof(int64_t));
    if (!o->head || !o->tail) return -1;
    memset(o->head, 0xff, o->nkeys * sizeof(int64_t));
    o->free_slot = -1;
    o->cursor = 0;
    return 0;
}

static int bucket_push(Open *o, Node x) {
    int64_t slot = o->free_slot;
    if (slot >= 0) {
        o->free_slot = o->next[slot];
    } else {
        if (o->used == o->cap) {
            size_t cap = o->cap ? 2 * o->cap : 1024;
            Node *a = realloc(o->a, cap * sizeof *a);
            if (!a) return -1;
            o->a = a;
            int64_t *next = realloc(o->next, cap * sizeof *next);
            if (!next) return -1;
            o->next = next;
            o->cap = cap;
        }
        slot = (int64_t)o->used++;
    }
    size_t key = (size_t)x.f * o->width + (size_t)x.h;
    o->a[slot] = x;
    o->next[slot] = -1;
    if (o->head[key] < 0)
        o->head[key] = slot;
    else
        o->next[o->tail[key]] = slot;
    o->tail[key] = slot;
    if (key < o->cursor) o->cursor = key;
    o->n++;
    return 0;
}

static Node bucket_pop(Open *o) {
    while (o->head[o->cursor] < 0) o->cursor++;
    int64_t slot = o->head[o->cursor];
    o->head[o->cursor] = o->next[slot];
    Node x = o->a[slot];
    o->next[slot] = o->free_slot;
    o->free_slot = slot;
    o->n--;
    return x;
}

static size_t open_bytes(const Open *o) {
    return o->cap * (sizeof(Node) + (o->head ? sizeof(int64_t) : 0)) +
           (o->head ? 2 * o->nkeys * sizeof(int64_t) : 0);
}

static void open_free(Open *o) {
    free(o->a);
    free(o->next);
    free(o->head);
    free(o->tail);
}

static inline int node_less(const Node *x, const Node *y) {
    if (x->f != y->f) return x->f < y->f;
    if (x->h != y->h) return x->h < y->h;
    return x->counter < y->counter;
}

static int open_push(Open *o, Node x) {
    if (o->head) return bucket_push(o, x);
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 1024;
        Node *a = realloc(o->a, cap * sizeof *a);
        if (!a) return -1;
        o->a = a;
        o->cap = cap;
    }
    size_t i = o->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!node_less(&x, &o->a[parent])) break;
        o->a[i] = o->a[parent];
        i = parent;
    }
    o->a[i] = x;
    return 0;
}

static Node open_pop(Open *o) {
    if (o->head) return bucket_pop(o);
    Node top = o->a[0], last = o->a[--o->n];
    size_t n = o->n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && node_less(&o->a[c + 1], &o->a[c])) c++;
        if (!node_less(&o->a[c], &last)) break;
        o->a[i] = o->a[c];
        i = c;
    }
    if (n) o->a[i] = last;
    return top;
}

/* ---------------------------------------------------------------- the search */

static void trace_back(const Table *tab, uint32_t id, SearchResult *r) {
    int len = 0;
    for (uint32_t s = id; tab->parent[s] != UINT32_MAX; s = tab->parent[s]) len++;
    r->plan = malloc(((size_t)len + 1) * sizeof(int32_t));
    if (!r->plan) {
        r->status = S_BUDGET;
        r->memory_exhausted = 1;
        return;
    }
    r->plan_len = len;
    for (uint32_t s = id; tab->parent[s] != UINT32_MAX; s = tab->parent[s])
        r->plan[--len] = tab->action[s];
}

/* The clock: 0 while the budget holds, S_BUDGET past the deadline, S_INTERRUPTED when the
 * interrupt callback (Ctrl-C in Python) asks to stop; the callback runs at most every 50 ms. */
typedef struct {
    double deadline, last_interrupt;
    const SearchParams *p;
} Clock;

static int clock_check(Clock *c) {
    double now = now_seconds();
    if (c->deadline >= 0 && now > c->deadline) return S_BUDGET;
    if (c->p->interrupt && now - c->last_interrupt > 0.05) {
        c->last_interrupt = now;
        if (c->p->interrupt(c->p->interrupt_arg)) return S_INTERRUPTED;
    }
    return 0;
}

void search_run(const CTask *t, const SearchParams *p, SearchResult *r) {
    static const int weights[3][3] = {{1, 1, 1}, {1, 0, 1}, {0, 1, 0}};
    int gw = weights[p->mode][0], hw = weights[p->mode][1];
    int reopen = weights[p->mode][2] || p->cost_bound != COST_INF;
    cost_t bound = p->cost_bound;
    int prune_h = p->admissible && p->cost_bound != COST_INF;
    Clock clock = {p->max_seconds >= 0 ? now_seconds() + p->max_seconds : -1.0, now_seconds(), p};
    int stop;
    int nw = t->nwords;
    size_t wb = (size_t)nw * sizeof(uint64_t);

    memset(r, 0, sizeof *r);
    r->status = S_BUDGET;
    Table tab = {0};
    tab.nwords = nw;
    int pref = p->preferred && p->heuristic == H_HFF && p->mode == M_GBFS;
    tab.track_closed = pref;
    Open open = {0}, popen = {0};
    int64_t prio[2] = {0, 0};
    uint8_t *mark = pref ? calloc((size_t)t->nactions + 1, 1) : NULL;
    int32_t *marked = pref ? malloc(((size_t)t->nactions + 1) * sizeof(int32_t)) : NULL;
    int nmarked = 0;
    HeurWork *hw_ = heur_new(t, p->heuristic);
    uint64_t *state = malloc(wb), *kids = malloc(BATCH * wb), *kid_hash = malloc(BATCH * 8);
    int32_t *kid_action = malloc(BATCH * sizeof(int32_t));
    int32_t *app = malloc(((size_t)t->nactions + 1) * sizeof(int32_t));
    /* derived predicates: every state is closed under the axioms (ctask_close's scratch) */
    size_t nax = (size_t)t->ax.naxioms + 1;
    int32_t *ax_missing = malloc(nax * sizeof(int32_t)), *ax_queue = malloc(nax * sizeof(int32_t));
    uint64_t counter = 0, work = 0;
#define CHECK_CLOCK()                   \
    if ((stop = clock_check(&clock))) { \
        r->status = stop;               \
        goto done;                      \
    }
    if (!hw_ || !state || !kids || !kid_hash || !kid_action || !app || !ax_missing || !ax_queue)
        goto oom;
    if (pref && (!mark || !marked)) goto oom;

    int is_new;
    memcpy(state, t->init, wb);
    ctask_close(t, state, ax_missing, ax_queue);
    int64_t root = table_intern(&tab, state, hash_words(state, nw), &is_new);
    if (root < 0) goto oom;
    cost_t h_root = heur_eval(hw_, state);
    r->evaluated++;
    if (h_root == COST_OOM) goto oom;
    tab.h[root] = h_root;
    cost_t best_h = h_root;
    if (h_root == COST_INF || bound <= 0 || (prune_h && h_root >= bound)) {
        r->status = S_UNSOLVABLE;
        goto done;
    }
    tab.g[root] = 0;
    if (gw == 1 && prune_h && bound <= MAX_BUCKET_BOUND && open_use_buckets(&open, bound))
        goto oom;
    if (open_push(&open, (Node){hw * h_root, h_root, 0, 0, (uint32_t)root})) goto oom;

    while (open.n || popen.n) {
        int q = 0;
        if (pref) {
            q = !open.n || (popen.n && prio[1] < prio[0]);
            prio[q]++;
        }
        Node node = open_pop(q ? &popen : &open);
        if (node.g > tab.g[node.id]) continue; /* a cheaper copy was pushed after this one */
        if (pref && tab.closed[node.id] <= node.g) continue; /* its copy in the other list */
        memcpy(state, tab.words + (size_t)node.id * nw, wb);
        if (ctask_is_goal(t, state)) {
            r->status = S_SOLVED;
            trace_back(&tab, node.id, r);
            goto done;
        }
        /* the budget: one node per expansion; the clock after every heuristic evaluation
         * and every 16 successors (reading it costs ~25 ns, an evaluation microseconds) */
        if (p->max_nodes >= 0 && r->expanded + 1 > p->max_nodes) goto done;
        if (p->max_bytes &&
            table_bytes(&tab) + open_bytes(&open) + open_bytes(&popen) > p->max_bytes) {
            r->memory_exhausted = 1;
            goto done;
        }
        r->expanded++;
        if (pref) {
            tab.closed[node.id] = node.g;
            nmarked = heur_preferred(hw_, state, mark, marked);
            if (nmarked < 0) goto oom;
            CHECK_CLOCK();
        }
        int napp = ctask_applicable(t, state, app);
        /* successors in batches: first each child, its hash and a prefetch of its slot,
         * then the table look-ups, so the slots' cache misses overlap */
        for (int k0 = 0; k0 < napp; k0 += BATCH) {
            int k1 = napp - k0 < BATCH ? napp : k0 + BATCH, nkids = 0;
            for (int k = k0; k < k1; k++) {
                int a = app[k];
                if (node.g + t->cost[a] >= bound) continue;
                uint64_t *c = kids + (size_t)nkids * nw;
                ctask_apply(t, state, a, c);
                ctask_close(t, c, ax_missing, ax_queue);
                kid_hash[nkids] = hash_words(c, nw);
                kid_action[nkids++] = a;
                if (tab.nslots)
                    __builtin_prefetch(tab.slots + (kid_hash[nkids - 1] & (tab.nslots - 1)));
            }
            r->generated += k1 - k0;
            work += (uint64_t)(k1 - k0);
            if (work & ~(uint64_t)15) {
                work &= 15;
                CHECK_CLOCK();
            }
            for (int j = 0; j < nkids; j++) {
                int a = kid_action[j];
                uint64_t *child = kids + (size_t)j * nw;
                cost_t new_g = node.g + t->cost[a];
                int64_t id = table_intern(&tab, child, kid_hash[j], &is_new);
                if (id < 0) goto oom;
                cost_t old_g = tab.g[id];
                if (old_g != G_UNSET && (!reopen || new_g >= old_g)) continue;
                cost_t h;
                if (is_new) {
                    h = heur_eval(hw_, child);
                    r->evaluated++;
                    if (h == COST_OOM) goto oom;
                    tab.h[id] = h;
                    if (pref && h < best_h) {
                        best_h = h;
                        prio[1] -= BOOST;
                    }
                    CHECK_CLOCK();
                } else {
                    h = tab.h[id];
                }
                if (h == COST_INF || (prune_h && new_g + h >= bound)) continue;
                tab.g[id] = new_g;
                tab.parent[id] = node.id;
                tab.action[id] = a;
                counter++;
                /* h_add may saturate near COST_INF: cap it so that g + h cannot overflow */
                cost_t hf = h < H_CAP ? h : H_CAP;
                Node child_node = {gw * new_g + hw * hf, h, new_g, counter, (uint32_t)id};
                if (open_push(&open, child_node)) goto oom;
                if (pref && mark[a] && open_push(&popen, child_node)) goto oom;
            }
        }
        if (pref) {
            for (int i = 0; i < nmarked; i++) mark[marked[i]] = 0;
            nmarked = 0;
        }
        if ((r->expanded & 15) == 0) CHECK_CLOCK();
    }
    r->status = S_UNSOLVABLE;
    goto done;
oom:
    r->status = S_BUDGET;
    r->memory_exhausted = 1;
done:
    heur_certificates(hw_, &r->certified, &r->rejected);
    r->states = (int64_t)tab.count;
    r->bytes = table_bytes(&tab) + open_bytes(&open) + open_bytes(&popen);
    table_free(&tab);
    open_free(&open);
    open_free(&popen);
    free(mark);
    free(marked);
    heur_free(hw_);
    free(state);
    free(kids);
    free(kid_hash);
    free(kid_action);
    free(app);
    free(ax_missing);
    free(ax_queue);
}
