// SPDX-License-Identifier: BSD-3-Clause
/*
 * chq.c - items handed from one thread to the next in chunks (base.h).
 *
 * A lock and a wakeup per chunk of thousands of items, not per item: the
 * threads of a pipeline (the decoder, the span builder, the orderer, the
 * writer) each touch the queue once per chunk.  NCHUNK chunks in flight
 * bound the memory and make a fast producer wait for a slow consumer.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "base.h"

void kt_chq_init(struct kt_chq *q, size_t item, size_t chunk)
{
	*q = (struct kt_chq){ .item = item, .chunk = chunk };
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	/* The others when first needed: a small input fills one. */
	q->buf[0] = kt_xmalloc(chunk * item);
	q->cur = q->buf[0];
}

void kt_chq_free(struct kt_chq *q)
{
	for (int i = 0; i < KT_CHQ_N; i++)
		free(q->buf[i]);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
}

void kt_chq_submit(struct kt_chq *q)
{
	if (!q->curlen)
		return;
	pthread_mutex_lock(&q->mu);
	q->len[q->submitted % KT_CHQ_N] = q->curlen;
	q->submitted++;
	pthread_cond_broadcast(&q->cv);
	while (q->submitted - q->done >= KT_CHQ_N && !q->cancel)
		pthread_cond_wait(&q->cv, &q->mu);
	if (!q->buf[q->submitted % KT_CHQ_N])
		q->buf[q->submitted % KT_CHQ_N] = kt_xmalloc(q->chunk * q->item);
	q->cur = q->buf[q->submitted % KT_CHQ_N];
	if (q->cancel)
		q->done = q->submitted;	/* nobody takes them any more */
	pthread_mutex_unlock(&q->mu);
	q->curlen = 0;
}

void kt_chq_close(struct kt_chq *q)
{
	kt_chq_submit(q);
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

const void *kt_chq_take(struct kt_chq *q, size_t *n)
{
	pthread_mutex_lock(&q->mu);
	while (q->done == q->submitted && !q->stop)
		pthread_cond_wait(&q->cv, &q->mu);
	const void *r = NULL;

	if (q->done != q->submitted) {
		*n = q->len[q->done % KT_CHQ_N];
		r = q->buf[q->done % KT_CHQ_N];
	}
	pthread_mutex_unlock(&q->mu);
	return r;
}

void kt_chq_done(struct kt_chq *q)
{
	pthread_mutex_lock(&q->mu);
	q->done++;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void kt_chq_cancel(struct kt_chq *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancel = 1;
	q->done = q->submitted;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

double kt_thread_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
