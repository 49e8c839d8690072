#ifndef PULSAR_CRLOTTIESHIM_H
#define PULSAR_CRLOTTIESHIM_H

/* Non-variadic entry points for rlottie's `lottie_animation_property_override`, whose variadic
 * signature Swift cannot call. One function per property kind; each forwards its values as the
 * `double`s rlottie reads with `va_arg`.
 *
 * Contracts shared by every function:
 * - `animation` is a live `Lottie_Animation *` from `lottie_animation_from_data` (or `_from_file`);
 *   it is declared here as an incomplete struct so this header needs no rlottie include.
 * - `keypath` is a NUL-terminated rlottie keypath: dot-separated names starting at the layer name,
 *   case-sensitive, with `*` (one level) and `**` (any depth) wildcards. rlottie copies it.
 * - Out-of-range values are ignored by rlottie (the override is not applied), not clamped.
 * - The override stays until the animation object is destroyed: rlottie has no way to remove one.
 * - rlottie does not invalidate its cached frame: re-rendering the frame number (and size) it
 *   rendered last returns the old pixels. The caller must force an update.
 * - Thread rules: those of the animation object (one thread at a time).
 */

struct Lottie_Animation_S;

/* Fill color of Fill objects; r, g, b in 0...1. */
void pulsar_rlottie_override_fill_color(struct Lottie_Animation_S *animation, const char *keypath,
                                        double r, double g, double b);
/* Fill opacity of Fill objects; 0...100. */
void pulsar_rlottie_override_fill_opacity(struct Lottie_Animation_S *animation, const char *keypath,
                                          double opacity);
/* Stroke color of Stroke objects; r, g, b in 0...1. */
void pulsar_rlottie_override_stroke_color(struct Lottie_Animation_S *animation, const char *keypath,
                                          double r, double g, double b);
/* Stroke opacity of Stroke objects; 0...100. */
void pulsar_rlottie_override_stroke_opacity(struct Lottie_Animation_S *animation,
                                            const char *keypath, double opacity);
/* Stroke width of Stroke objects, in composition units. */
void pulsar_rlottie_override_stroke_width(struct Lottie_Animation_S *animation, const char *keypath,
                                          double width);
/* Transform position (composition units). Takes effect on shape groups only, not on layers. */
void pulsar_rlottie_override_position(struct Lottie_Animation_S *animation, const char *keypath,
                                      double x, double y);
/* Transform scale in percent (100 = unscaled). Takes effect on shape groups only. */
void pulsar_rlottie_override_scale(struct Lottie_Animation_S *animation, const char *keypath,
                                   double width, double height);
/* Transform rotation in degrees. Takes effect on shape groups only. */
void pulsar_rlottie_override_rotation(struct Lottie_Animation_S *animation, const char *keypath,
                                      double degrees);

#endif
