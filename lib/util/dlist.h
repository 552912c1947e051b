/*
 * Doubly linked lists through prev/next members (the list head's prev is
 * not used as a tail pointer: these lists are short or unordered).
 */
#ifndef RINGSMB_DLIST_H
#define RINGSMB_DLIST_H

#define DLIST_ADD_SIMPLE(list, p) do { \
	(p)->prev = NULL; \
	(p)->next = (list); \
	if ((list) != NULL) { \
		(list)->prev = (p); \
	} \
	(list) = (p); \
} while (0)

#define DLIST_REMOVE_SIMPLE(list, p) do { \
	if ((p)->prev != NULL) { \
		(p)->prev->next = (p)->next; \
	} else if ((list) == (p)) { \
		(list) = (p)->next; \
	} \
	if ((p)->next != NULL) { \
		(p)->next->prev = (p)->prev; \
	} \
	(p)->prev = (p)->next = NULL; \
} while (0)

/* Append at the tail (walks the list: for short queues). */
#define DLIST_ADD_END_SIMPLE(list, p) do { \
	(p)->next = NULL; \
	if ((list) == NULL) { \
		(p)->prev = NULL; \
		(list) = (p); \
	} else { \
		__typeof__(p) t_ = (list); \
		while (t_->next != NULL) { \
			t_ = t_->next; \
		} \
		t_->next = (p); \
		(p)->prev = t_; \
	} \
} while (0)

#endif
