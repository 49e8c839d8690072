/* Included by path rather than through pkg-config: sdl2.pc adds -D_REENTRANT, which SwiftPM
   refuses, and SDL's headers include one another relative to their own folder. */
#include <SDL2/SDL.h>

/* SDL's window-position and button-mask constants are macros Swift does not import. */
static const int CSDL2_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;
static const unsigned int CSDL2_BUTTON_LMASK = SDL_BUTTON_LMASK;
