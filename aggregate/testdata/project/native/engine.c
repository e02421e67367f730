#include <stdio.h>
#include "engine.h"

/* A point in the plane. */
struct point {
    int x;
    int y;
};

typedef enum { IDLE, RUNNING } state_t;

static int counter = 0;

/* Advance the engine by one tick. */
int engine_tick(struct point *p, int dt)
{
    p->x += dt;
    counter++;
    return counter;
}

void engine_reset(void) { counter = 0; }
