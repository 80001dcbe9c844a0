/* main's return value must become the exit code (crt0 calls fw_exit). */
#include "fw.h"

int main(void) {
  puts("exiting with 3");
  return 3;
}
