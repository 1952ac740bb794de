/*
 * Judy arrays (http://judy.sourceforge.net), the system library CStateResolver stores its rules
 * in. Debian and Ubuntu ship it as libjudy-dev (no pkg-config file), which `make deps` installs;
 * Homebrew as judy.
 */
#ifndef CJUDY_H
#define CJUDY_H

#if __has_include(<Judy.h>)
#define JUDYERROR_NOTEST 1
#include <Judy.h>
#else
#error "Judy.h not found: StatefulControls needs the Judy library. On Debian or Ubuntu: apt-get install libjudy-dev (or run `make deps`). With Homebrew: brew install judy, and pass its prefix to the build (swift build -Xcc -I$(brew --prefix)/include -Xlinker -L$(brew --prefix)/lib)."
#endif

#endif
