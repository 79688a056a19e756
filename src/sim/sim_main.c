/* spotsim — placeholder entry point until the simulator lands (issue 2). */
#include <stdio.h>

int main(void) {
    fprintf(stderr, "spotsim: not built yet\n");
    return 1;
}
