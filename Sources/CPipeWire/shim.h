// libpipewire-0.3 (Debian's libpipewire-0.3-dev), through pkg-config. Swift reaches PipeWire
// only through CPipeWireShim, which keeps SPA's macros and inline builders in C.
#include <pipewire/pipewire.h>
