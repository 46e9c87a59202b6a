/* A library with a __thread array too large for glibc's static TLS
   surplus: dlopen gives it dynamic TLS. */
__thread char big[65536];

char *plugin_big(void) { return big; }
