/* Copyright header that the skeleton drops. */

#ifndef SAMPLE_H
#define SAMPLE_H

#include <stdio.h>
#include "engine.h"

#define MAX_ITEMS 64
#define SQUARE(x) ((x) * (x))

/* A point in the plane. */
struct point {
	int x; /* horizontal */
	int y;
};

typedef struct {
	struct point *items;
	size_t len;
} point_list;

enum color { RED, GREEN = 2, BLUE };

union value {
	int i;
	double d;
};

static int counter = 0;

/* Prototype: a declaration without a body. */
int area(const struct point *a, const struct point *b);

/**
 * Print a message that contains ``` backticks.
 */
static void
log_message(const char *msg)
{
	if (msg) {
		printf("``` %s\n", msg);
	}
}

int area(const struct point *a, const struct point *b) {
	int w = b->x - a->x;
	int h = b->y - a->y;
	return w * h;
}

#endif /* SAMPLE_H */
