/* Overhead compensation rules (seed 000): local subtraction and the
 * message-by-message parallel analysis. See rp_comp.h. */
#include "rp_comp.h"

void rp_comp_init(rp_comp *c) {
  c->o = c->adj = c->x = c->wait = c->wait_c = c->msgs = 0.0;
}

void rp_comp_overhead(rp_comp *c, double dt) {
  c->o += dt;
  c->x += dt;
}

double rp_comp_recv(rp_comp *c, double w, double xs) {
  if (!(w > 0.0))
    w = 0.0;
  double wc = w + c->x - xs; /* receive began x early, message xs early */
  if (!(wc > 0.0))
    wc = 0.0;              /* case 1: the message would have been there */
  double d = w - wc;       /* waiting removed (negative: added) */
  c->adj += d;
  c->x += d;               /* = min(xs, x + w) */
  c->wait += w;
  c->wait_c += wc;
  c->msgs += 1.0;
  return wc;
}

double rp_comp_recv_timed(rp_comp *c, double w, double late, double sent) {
  if (!(w > 0.0))
    w = 0.0;
  if (!(late > 0.0))
    late = 0.0;
  if (!(sent > 0.0))
    sent = 0.0;
  double wc = late + w - sent;
  if (!(wc > 0.0))
    wc = 0.0;
  double d = w - wc; /* waiting removed (negative: added) */
  c->adj += d;
  c->x += d;
  c->wait += w;
  c->wait_c += wc;
  c->msgs += 1.0;
  return wc;
}

int rp_comp_reordered(double ta, double xa, double tb, double xb) {
  return ta <= tb && ta - xa > tb - xb;
}

double rp_comp_local(double incl, double ov) {
  double v = incl - ov;
  return v > 0.0 ? v : 0.0;
}

double rp_comp_parallel(double incl, double ov, double adj) {
  double v = incl - ov - adj;
  return v > 0.0 ? v : 0.0;
}
