/* The model's Bottleneck Offload Interval (issue 12, beyond seed 004):
 * the machine model's point-to-point time for the messages, and the tool
 * ranks' own work timed on this machine (a filter's cost per event, the
 * front-end's cost per row written). Shared by librevprof's front-end
 * (monitor-probe --predict) and the revprof tool (--model-only). */
#ifndef RP_MONITOR_CAL_H
#define RP_MONITOR_CAL_H

#include "revprof_model.h"
#include "rp_monitor_rule.h"

/* one message of bytes: the sender's or the receiver's time at p = 2,
 * the longer (ctx: the revprof_model) */
double rp_mon_model_msg(double bytes, void *ctx);
/* seconds per event of adding a raw packet with the filter, timed here */
double rp_mon_time_filter(int filter);
/* seconds per profile row the front-end writes with the filter, timed
 * here (to /dev/null: the formatting and the stdio buffer) */
double rp_mon_time_row(int filter);
/* rp_mon_predict_x with the model's messages, the timed filter, and the
 * front-end's rows of a probe profile of events (the first
 * RP_MON_PROBE_NONZERO non-zero; histograms two rows each) */
void rp_mon_predict_model(const revprof_model *m, int apps, int tools,
                          int fanout, int events, int filter, int cores,
                          rp_mon_pred *out);

#endif
