/*
 * The Prometheus endpoint ('metrics listen'; metrics.c, docs/admin.md).
 */
#ifndef RINGSMB_SMBD_METRICS_H
#define RINGSMB_SMBD_METRICS_H

#include "source3/smbd/smbd.h"

/*
 * Listens when 'metrics listen' is set: 0 (also when it is not), -1
 * when the address cannot be used (logged; smbd does not start).
 */
int smbd_metrics_start(struct smbd_server *server);

#endif
