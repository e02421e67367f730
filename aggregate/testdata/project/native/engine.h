#ifndef ENGINE_H
#define ENGINE_H
struct point;
int engine_tick(struct point *p, int dt);
void engine_reset(void);
#endif
