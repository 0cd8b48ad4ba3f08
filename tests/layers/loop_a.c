/* layers_check's own test: this module and loop_b.c call each other, a
 * loop the check must report. */
int rp_loop_b(int n);
int rp_loop_a(int n);
int rp_loop_a(int n) { return n > 0 ? rp_loop_b(n - 1) : 0; }
