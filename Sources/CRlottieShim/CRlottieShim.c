#include "CRlottieShim.h"

#include <rlottie_capi.h>

/* rlottie reads each value with `va_arg(args, double)`: pass doubles, in the documented order. */

void pulsar_rlottie_override_fill_color(struct Lottie_Animation_S *animation, const char *keypath,
                                        double r, double g, double b) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_FILLCOLOR, keypath, r, g, b);
}

void pulsar_rlottie_override_fill_opacity(struct Lottie_Animation_S *animation, const char *keypath,
                                          double opacity) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_FILLOPACITY, keypath, opacity);
}

void pulsar_rlottie_override_stroke_color(struct Lottie_Animation_S *animation, const char *keypath,
                                          double r, double g, double b) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_STROKECOLOR, keypath, r, g, b);
}

void pulsar_rlottie_override_stroke_opacity(struct Lottie_Animation_S *animation,
                                            const char *keypath, double opacity) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_STROKEOPACITY, keypath, opacity);
}

void pulsar_rlottie_override_stroke_width(struct Lottie_Animation_S *animation, const char *keypath,
                                          double width) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_STROKEWIDTH, keypath, width);
}

void pulsar_rlottie_override_position(struct Lottie_Animation_S *animation, const char *keypath,
                                      double x, double y) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_TR_POSITION, keypath, x, y);
}

void pulsar_rlottie_override_scale(struct Lottie_Animation_S *animation, const char *keypath,
                                   double width, double height) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_TR_SCALE, keypath, width, height);
}

void pulsar_rlottie_override_rotation(struct Lottie_Animation_S *animation, const char *keypath,
                                      double degrees) {
    lottie_animation_property_override(animation, LOTTIE_ANIMATION_PROPERTY_TR_ROTATION, keypath, degrees);
}
