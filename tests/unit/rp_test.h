/* Helpers shared by the CMocka unit tests (Debian 12's cmocka 1.1.5 has no
 * assert_double_equal). */
#ifndef RP_TEST_H
#define RP_TEST_H

#include <math.h>
#include <stdio.h>

/* |a - b| <= tol, with both values in the failure message. */
#define assert_near(a, b, tol)                                                 \
  do {                                                                         \
    double rp_a_ = (a), rp_b_ = (b), rp_t_ = (tol);                            \
    if (!(fabs(rp_a_ - rp_b_) <= rp_t_))                                       \
      fail_msg("%s = %.17g, expected %s = %.17g (tolerance %g)", #a, rp_a_,    \
               #b, rp_b_, rp_t_);                                              \
  } while (0)

/* |a - b| <= rel * |b| */
#define assert_rel(a, b, rel)                                                  \
  assert_near(a, b, (rel) * fabs((double)(b)))

#endif
