/* Compatibility for artifact snapshots whose headers lag their sources (see
   compare.sh): the in-operation GC threshold, unused with IN_OP_GC=0, and an
   external declaration of reassign_and_keepalive. */
#include <stdint.h>
#ifndef IN_OP_GC_THRES
#define IN_OP_GC_THRES 0.9
#endif
extern void reassign_and_keepalive(uint32_t *target, uint32_t value);
