/*
 * Each thread's last few AEAD contexts (crypto_private.h, aead_cached).
 *
 * gnutls_aead_cipher_init allocates a context and expands the key (for
 * GCM also the GHASH powers); for a signed 4 KiB READ that cost as much
 * as the MAC itself, twice per request (the request's check and the
 * response's signature).  A context is reusable: every encryptv2 and
 * decryptv2 call takes its own nonce.  So each thread keeps the
 * contexts of the last AEAD_CACHE_SLOTS keys it used, found by comparing
 * the key, and never shares them with another thread.
 *
 * Keys must not outlive their session in memory: smb2_keys_wipe (a
 * session's end) calls aead_cache_keys_retired, and every thread drops
 * all its contexts (and its copies of their keys) the next time it
 * signs, seals or opens, or when it exits.  A thread that never does any
 * of that again keeps at most AEAD_CACHE_SLOTS expanded keys until the
 * process ends.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include "lib/crypto/crypto_private.h"

#define AEAD_CACHE_SLOTS 8
#define AEAD_CACHE_KEY_MAX 32

struct aead_slot {
	gnutls_aead_cipher_hd_t h;      /* NULL: the slot is free */
	gnutls_cipher_algorithm_t alg;
	size_t key_len;
	uint8_t key[AEAD_CACHE_KEY_MAX];
	uint64_t used;
};

struct aead_cache {
	struct aead_slot slot[AEAD_CACHE_SLOTS];
	uint64_t tick;
	uint64_t epoch;
};

static __thread struct aead_cache *thread_cache;
static uint64_t keys_epoch;
static pthread_key_t exit_key;
static bool exit_key_ok;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void slot_clear(struct aead_slot *s)
{
	if (s->h != NULL) {
		gnutls_aead_cipher_deinit(s->h);
	}
	crypto_wipe(s, sizeof(*s));
}

static void cache_clear(struct aead_cache *c)
{
	size_t i;

	for (i = 0; i < AEAD_CACHE_SLOTS; i++) {
		slot_clear(&c->slot[i]);
	}
}

static void cache_thread_exit(void *p)
{
	struct aead_cache *c = p;

	cache_clear(c);
	free(c);
	thread_cache = NULL;
}

static void exit_key_make(void)
{
	exit_key_ok = pthread_key_create(&exit_key, cache_thread_exit) == 0;
}

void aead_cache_keys_retired(void)
{
	__atomic_add_fetch(&keys_epoch, 1, __ATOMIC_RELEASE);
}

/* This thread's cache, emptied if keys were retired since its last use. */
static struct aead_cache *cache_get(void)
{
	struct aead_cache *c = thread_cache;
	uint64_t epoch = __atomic_load_n(&keys_epoch, __ATOMIC_ACQUIRE);

	if (c == NULL) {
		pthread_once(&exit_once, exit_key_make);
		if (!exit_key_ok) {
			return NULL;    /* no way to free it at exit: uncached */
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL || pthread_setspecific(exit_key, c) != 0) {
			free(c);
			return NULL;
		}
		thread_cache = c;
		c->epoch = epoch;
	}
	if (c->epoch != epoch) {
		cache_clear(c);
		c->epoch = epoch;
	}
	return c;
}

int aead_cached(gnutls_cipher_algorithm_t alg, const uint8_t *key,
		size_t key_len, gnutls_aead_cipher_hd_t *h, bool *owned)
{
	gnutls_datum_t k = { .data = (uint8_t *)key, .size = key_len };
	struct aead_cache *c = NULL;
	struct aead_slot *s = NULL;
	size_t i;

	*owned = false;
	if (key_len > AEAD_CACHE_KEY_MAX || (c = cache_get()) == NULL) {
		*owned = true;
		return gnutls_aead_cipher_init(h, alg, &k) == 0 ? 0 : -ENOMEM;
	}
	for (i = 0; i < AEAD_CACHE_SLOTS; i++) {
		struct aead_slot *x = &c->slot[i];

		if (x->h != NULL && x->alg == alg && x->key_len == key_len &&
		    gnutls_memcmp(x->key, key, key_len) == 0) {
			x->used = ++c->tick;
			*h = x->h;
			return 0;
		}
		if (s == NULL || x->h == NULL ||
		    (s->h != NULL && x->used < s->used)) {
			s = x;          /* a free slot, else the least recent */
		}
	}
	slot_clear(s);
	if (gnutls_aead_cipher_init(&s->h, alg, &k) != 0) {
		s->h = NULL;
		return -ENOMEM;
	}
	s->alg = alg;
	s->key_len = key_len;
	memcpy(s->key, key, key_len);
	s->used = ++c->tick;
	*h = s->h;
	return 0;
}

void aead_release(gnutls_aead_cipher_hd_t h, bool owned)
{
	if (owned && h != NULL) {
		gnutls_aead_cipher_deinit(h);
	}
}
