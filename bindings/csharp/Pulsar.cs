// Pulsar.cs — C# bindings of libpulsar (include/pulsar.h): patterns, bundles, mixes, the engine and
// its voices, the follower. One file of plain P/Invoke, no unsafe code: mcs, .NET and Unity build it.
//
//   mcs -out:game.exe bindings/csharp/Pulsar.cs examples/csharp/Game.cs
//   LD_LIBRARY_PATH=/usr/local/lib mono game.exe --device sim
//
// The library is loaded by the name "pulsar" (libpulsar.so on the loader's path; `make install`
// and the Debian package install it). Every object owns a SafeHandle and is IDisposable; a failing
// call throws a PulsarException (a subclass per result code) with libpulsar's one-line message.
// Completion callbacks run inside Engine.Poll on the polling thread; the binding keeps each one
// alive while the library may call it. Thread rules are the header's.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace Pulsar
{
    /// <summary>A libpulsar call failed: Code is its pulsar_result (negative).</summary>
    public class PulsarException : Exception
    {
        public int Code { get; private set; }
        public PulsarException(int code, string message) : base(message) { Code = code; }

        internal static PulsarException For(int code, string message)
        {
            switch (code)
            {
                case -1: return new PulsarArgumentException(code, message);
                case -2: return new PulsarNotFoundException(code, message);
                case -3: return new PulsarDataException(code, message);
                case -4: return new PulsarIOException(code, message);
                case -5: return new PulsarDeviceException(code, message);
                case -6: return new PulsarBusyException(code, message);
                case -7: return new PulsarStateException(code, message);
                default: return new PulsarException(code, message);
            }
        }
    }

    /// <summary>A bad value, string or handle (PULSAR_ERROR_ARGUMENT).</summary>
    public class PulsarArgumentException : PulsarException { public PulsarArgumentException(int c, string m) : base(c, m) { } }
    /// <summary>No such file, preset or device (PULSAR_ERROR_NOT_FOUND).</summary>
    public class PulsarNotFoundException : PulsarException { public PulsarNotFoundException(int c, string m) : base(c, m) { } }
    /// <summary>A file breaks a format rule; the message names the place (PULSAR_ERROR_DATA).</summary>
    public class PulsarDataException : PulsarException { public PulsarDataException(int c, string m) : base(c, m) { } }
    /// <summary>An output cannot be written (PULSAR_ERROR_IO).</summary>
    public class PulsarIOException : PulsarException { public PulsarIOException(int c, string m) : base(c, m) { } }
    /// <summary>A sound device cannot be opened or failed (PULSAR_ERROR_DEVICE).</summary>
    public class PulsarDeviceException : PulsarException { public PulsarDeviceException(int c, string m) : base(c, m) { } }
    /// <summary>A queue is full: poll the engine and try again (PULSAR_ERROR_BUSY).</summary>
    public class PulsarBusyException : PulsarException { public PulsarBusyException(int c, string m) : base(c, m) { } }
    /// <summary>The call does not fit the object's state (PULSAR_ERROR_STATE).</summary>
    public class PulsarStateException : PulsarException { public PulsarStateException(int c, string m) : base(c, m) { } }

    /// <summary>Marks a static method the native side calls back (IL2CPP looks for this name).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }

    /// <summary>The C functions, structs and strings: everything the classes below stand on.</summary>
    internal static class Native
    {
        const string Lib = "pulsar";
        /// <summary>PULSAR_ABI_VERSION of the header these bindings follow.</summary>
        public const int AbiVersion = 0;

        [StructLayout(LayoutKind.Sequential)]
        public struct MixOptions
        {
            public UIntPtr size; public int sample_rate; public IntPtr layout; public IntPtr profile;
            public double haptic_gain; public double audio_gain; public int loop_count; public IntPtr actuator;
            public int derive; public double from_ms; public double to_ms; public double haptic_offset_ms; public int reverse;
        }

        [StructLayout(LayoutKind.Sequential)]
        public struct FollowerOptions
        {
            public UIntPtr size; public int sample_rate; public IntPtr method; public IntPtr profile;
            public double band_low_hz; public double band_high_hz; public double gain_db; public double gate_db;
            public double attack_ms; public double release_ms; public int no_transients;
        }

        [StructLayout(LayoutKind.Sequential)]
        public struct EngineOptions
        {
            public UIntPtr size; public IntPtr device; public IntPtr layout; public int sample_rate;
            public int period_frames; public int buffer_frames; public int voice_limit; public IntPtr haptic_device;
            public IntPtr haptic_layout; public double latency_ms; public double haptic_latency_ms; public IntPtr log_path;
        }

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        public delegate void Completion(IntPtr voice, int finished, IntPtr context);

        [DllImport(Lib)] public static extern int pulsar_abi_version();
        [DllImport(Lib)] public static extern IntPtr pulsar_version();
        [DllImport(Lib)] public static extern IntPtr pulsar_last_error();
        [DllImport(Lib)] public static extern int pulsar_pattern_open(byte[] path, out PatternHandle pattern);
        [DllImport(Lib)] public static extern int pulsar_pattern_from_memory(byte[] data, UIntPtr size, out PatternHandle pattern);
        [DllImport(Lib)] public static extern double pulsar_pattern_duration_ms(PatternHandle pattern);
        [DllImport(Lib)] public static extern void pulsar_pattern_free(IntPtr pattern);
        [DllImport(Lib)] public static extern int pulsar_pattern_warning_count(PatternHandle pattern);
        [DllImport(Lib)] public static extern IntPtr pulsar_pattern_warning(PatternHandle pattern, int index);
        [DllImport(Lib)] public static extern int pulsar_pattern_lint(PatternHandle pattern, ref MixOptions options, byte[] json, UIntPtr capacity);
        [DllImport(Lib)] public static extern int pulsar_bundle_warning_count(BundleHandle bundle);
        [DllImport(Lib)] public static extern IntPtr pulsar_bundle_warning(BundleHandle bundle, int index);
        [DllImport(Lib)] public static extern int pulsar_bundle_open(byte[] path, out BundleHandle bundle);
        [DllImport(Lib)] public static extern int pulsar_bundle_preset_count(BundleHandle bundle);
        [DllImport(Lib)] public static extern IntPtr pulsar_bundle_preset_id(BundleHandle bundle, int index);
        [DllImport(Lib)] public static extern void pulsar_bundle_free(IntPtr bundle);
        [DllImport(Lib)] public static extern int pulsar_mix_from_pattern(PatternHandle pattern, ref MixOptions options, out MixHandle mix);
        [DllImport(Lib)] public static extern int pulsar_mix_from_preset(BundleHandle bundle, byte[] preset, ref MixOptions options, out MixHandle mix);
        [DllImport(Lib)] public static extern long pulsar_mix_frames(MixHandle mix);
        [DllImport(Lib)] public static extern int pulsar_mix_channels(MixHandle mix);
        [DllImport(Lib)] public static extern int pulsar_mix_sample_rate(MixHandle mix);
        [DllImport(Lib)] public static extern int pulsar_mix_render(MixHandle mix, long fromFrame, [Out] float[] buffer, long frames);
        [DllImport(Lib)] public static extern int pulsar_mix_write_wav(MixHandle mix, byte[] path);
        [DllImport(Lib)] public static extern void pulsar_mix_free(IntPtr mix);
        [DllImport(Lib)] public static extern int pulsar_mix_open(byte[] path, byte[] preset, ref MixOptions options, out MixHandle mix);
        [DllImport(Lib)] public static extern int pulsar_replay(byte[] log, int hapticDevice, float[] buffer, long capacityFrames, out long frames, out int channels, out int sampleRate);
        [DllImport(Lib)] public static extern int pulsar_mix_warning_count(MixHandle mix);
        [DllImport(Lib)] public static extern IntPtr pulsar_mix_warning(MixHandle mix, int index);
        [DllImport(Lib)] public static extern int pulsar_follower_create(ref FollowerOptions options, out FollowerHandle follower);
        [DllImport(Lib)] public static extern int pulsar_follower_process(FollowerHandle follower, float[] input, int channels, long frames, [Out] float[] haptics);
        [DllImport(Lib)] public static extern long pulsar_follower_onsets(FollowerHandle follower);
        [DllImport(Lib)] public static extern void pulsar_follower_free(IntPtr follower);
        [DllImport(Lib)] public static extern int pulsar_engine_create(ref EngineOptions options, out EngineHandle engine);
        [DllImport(Lib)] public static extern int pulsar_engine_poll(EngineHandle engine);
        [DllImport(Lib)] public static extern double pulsar_engine_time(EngineHandle engine);
        [DllImport(Lib)] public static extern int pulsar_engine_is_idle(EngineHandle engine);
        [DllImport(Lib)] public static extern int pulsar_engine_set_master_gain(EngineHandle engine, double value, double seconds);
        [DllImport(Lib)] public static extern int pulsar_engine_stop(EngineHandle engine);
        [DllImport(Lib)] public static extern void pulsar_engine_free(IntPtr engine);
        [DllImport(Lib)] public static extern int pulsar_engine_voice(EngineHandle engine, MixHandle mix, int priority, int realtime, out VoiceHandle voice);
        [DllImport(Lib)] public static extern void pulsar_voice_free(IntPtr voice);
        [DllImport(Lib)] public static extern int pulsar_voice_play(VoiceHandle voice, double fromMs);
        [DllImport(Lib)] public static extern int pulsar_voice_play_at(VoiceHandle voice, double engineTime);
        [DllImport(Lib)] public static extern int pulsar_voice_pause(VoiceHandle voice);
        [DllImport(Lib)] public static extern int pulsar_voice_resume(VoiceHandle voice);
        [DllImport(Lib)] public static extern int pulsar_voice_stop(VoiceHandle voice);
        [DllImport(Lib)] public static extern int pulsar_voice_seek(VoiceHandle voice, double toMs);
        [DllImport(Lib)] public static extern int pulsar_voice_set_intensity(VoiceHandle voice, double value, double seconds);
        [DllImport(Lib)] public static extern int pulsar_voice_set_sharpness(VoiceHandle voice, double value, double seconds);
        [DllImport(Lib)] public static extern int pulsar_voice_set_intensity_curve(VoiceHandle voice, double[] times, double[] values, int count);
        [DllImport(Lib)] public static extern int pulsar_voice_set_content_time(VoiceHandle voice, double ms);
        [DllImport(Lib)] public static extern double pulsar_voice_content_ms(VoiceHandle voice);
        [DllImport(Lib)] public static extern double pulsar_voice_animation_frame(VoiceHandle voice);
        [DllImport(Lib)] public static extern int pulsar_voice_has_ended(VoiceHandle voice);
        [DllImport(Lib)] public static extern int pulsar_voice_on_completion(VoiceHandle voice, Completion callback, IntPtr context);

        /// <summary>Throws for a negative result, with the calling thread's last error.</summary>
        public static int Check(int code)
        {
            if (code >= 0) return code;
            string message = Utf8(pulsar_last_error());
            throw PulsarException.For(code, message ?? ("libpulsar error " + code));
        }

        /// <summary>A string as NUL-terminated UTF-8 (null stays NULL; a NUL inside, where C would stop, is refused).</summary>
        public static byte[] Bytes(string text)
        {
            if (text == null) return null;
            if (text.IndexOf('\0') >= 0) throw Refuse("pulsar: a string holds a NUL character (C would read only what comes before it)");
            return Encoding.UTF8.GetBytes(text + "\0");
        }

        public static PulsarArgumentException Refuse(string message) { return new PulsarArgumentException(-1, message); }
        /// <summary>Throws unless `array` holds frames × channels samples, at most 2^31 - 1 (what one call takes).</summary>
        public static void Holds(Array array, string name, long frames, long channels)
        {
            if (array == null) throw Refuse("pulsar: " + name + " is null");
            if (frames < 0 || channels < 1 || frames > int.MaxValue / channels)
                throw Refuse("pulsar: " + frames + " frames of " + channels + " channels is not 0 to 2^31 - 1 samples");
            if (array.LongLength < frames * channels)
                throw Refuse("pulsar: " + name + " holds " + array.LongLength + " samples, fewer than " + frames + " frames x " + channels + " channels");
        }

        /// <summary>A NUL-terminated UTF-8 string the library owns, copied; null for NULL.</summary>
        public static string Utf8(IntPtr text)
        {
            if (text == IntPtr.Zero) return null;
            int length = 0;
            while (Marshal.ReadByte(text, length) != 0) length++;
            byte[] bytes = new byte[length];
            Marshal.Copy(text, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }

        /// <summary>Strings handed to a struct: unmanaged copies, freed together.</summary>
        public sealed class Strings : IDisposable
        {
            readonly List<IntPtr> owned = new List<IntPtr>();
            public IntPtr Add(string text)
            {
                byte[] bytes = Bytes(text);
                if (bytes == null) return IntPtr.Zero;
                IntPtr p = Marshal.AllocHGlobal(bytes.Length);
                Marshal.Copy(bytes, 0, p, bytes.Length);
                owned.Add(p);
                return p;
            }
            public void Dispose()
            {
                foreach (IntPtr p in owned) Marshal.FreeHGlobal(p);
                owned.Clear();
            }
        }

        static Native()
        {
            int abi = pulsar_abi_version();
            if (abi != AbiVersion)
                throw new PulsarException(-1, "libpulsar has ABI version " + abi + "; these bindings need " + AbiVersion);
        }
    }

    /// <summary>The SafeHandles: each frees its object with the matching pulsar_*_free.</summary>
    public abstract class PulsarHandle : SafeHandle
    {
        protected PulsarHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
    }
    public sealed class PatternHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_pattern_free(handle); return true; } }
    public sealed class BundleHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_bundle_free(handle); return true; } }
    public sealed class MixHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_mix_free(handle); return true; } }
    public sealed class FollowerHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_follower_free(handle); return true; } }
    public sealed class EngineHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_engine_free(handle); return true; } }
    public sealed class VoiceHandle : PulsarHandle { protected override bool ReleaseHandle() { Native.pulsar_voice_free(handle); return true; } }

    /// <summary>The library's version and ABI.</summary>
    public static class Library
    {
        /// <summary>libpulsar's version, e.g. "0.1.0".</summary>
        public static string Version { get { return Native.Utf8(Native.pulsar_version()); } }
        /// <summary>The ABI version of the library loaded (PULSAR_ABI_VERSION).</summary>
        public static int AbiVersion { get { return Native.pulsar_abi_version(); } }
    }

    /// <summary>How to mix: 0 / null members keep the library's defaults.</summary>
    public sealed class MixSettings
    {
        public int SampleRate;          // 8000...192000; default 48000
        public string Layout;           // "haptic", "mix", "stereo+haptic", "quad", "L+H,R+H,0", ...
        public string Profile;          // "wideband", "lra", "lra:HZ", "FMIN:FMAX"
        public double HapticGain;       // (0, 16]; default 1
        public double AudioGain;        // (0, 16]; default 1
        public int LoopCount;           // iterations; -1 endless; default 1
        public string Actuator;         // an actuator config instead of Profile: a .acf path or a shipped name
        public bool Derive;             // Mix.Open: a preset of audio alone gets haptics derived from its audio
        public double FromMs, ToMs;     // the segment that plays (0: the start, 0: the end)
        public double HapticOffsetMs;   // haptics later (+) or earlier (-) than the audio
        public bool Reverse;            // boomerang: every second iteration runs backwards

        internal Native.MixOptions ToNative(Native.Strings strings)
        {
            var o = new Native.MixOptions();
            o.size = (UIntPtr)Marshal.SizeOf(typeof(Native.MixOptions));
            o.sample_rate = SampleRate; o.layout = strings.Add(Layout); o.profile = strings.Add(Profile);
            o.haptic_gain = HapticGain; o.audio_gain = AudioGain; o.loop_count = LoopCount; o.actuator = strings.Add(Actuator);
            o.derive = Derive ? 1 : 0; o.from_ms = FromMs; o.to_ms = ToMs; o.haptic_offset_ms = HapticOffsetMs; o.reverse = Reverse ? 1 : 0;
            return o;
        }

        internal delegate int Maker(ref Native.MixOptions options, out MixHandle mix);
        /// <summary>A mix `make` makes with `settings` (null: the defaults) as its options.</summary>
        internal static Mix Make(MixSettings settings, Maker make)
        {
            using (var strings = new Native.Strings())
            {
                var options = (settings ?? new MixSettings()).ToNative(strings);
                MixHandle h;
                Native.Check(make(ref options, out h));
                return new Mix(h);
            }
        }
    }

    /// <summary>What a logged session played, rebuilt from its event log.</summary>
    public static class Replay
    {
        /// <summary>The samples the device (or, with hapticDevice, the haptic device of two) was
        /// given, interleaved, as pulsar render --replay rebuilds them; their channels and rate.</summary>
        public static float[] Read(string logPath, bool hapticDevice, out int channels, out int sampleRate)
        {
            byte[] path = Native.Bytes(logPath);
            long frames;
            Native.Check(Native.pulsar_replay(path, hapticDevice ? 1 : 0, null, 0, out frames, out channels, out sampleRate));
            var samples = new float[checked(frames * channels)];
            Native.Check(Native.pulsar_replay(path, hapticDevice ? 1 : 0, samples, frames, out frames, out channels, out sampleRate));
            return samples;
        }
    }

    /// <summary>A haptic pattern: Pulsar JSON, AHAP or Lofelt .haptic, read by its content.</summary>
    public sealed class Pattern : IDisposable
    {
        readonly PatternHandle handle;
        Pattern(PatternHandle handle) { this.handle = handle; }
        public static Pattern Open(string path)
        {
            PatternHandle h;
            Native.Check(Native.pulsar_pattern_open(Native.Bytes(path), out h));
            return new Pattern(h);
        }

        public static Pattern FromText(string text)
        {
            byte[] data = Encoding.UTF8.GetBytes(text);
            PatternHandle h;
            Native.Check(Native.pulsar_pattern_from_memory(data, (UIntPtr)data.Length, out h));
            return new Pattern(h);
        }

        /// <summary>How long the pattern sounds, ms: its render on the default device (wideband at
        /// 48 kHz), a lone transient's burst included.</summary>
        public double DurationMs { get { return Native.pulsar_pattern_duration_ms(handle); } }

        /// <summary>The warnings met reading the pattern (what pulsar prints on stderr), one line each.</summary>
        public string[] Warnings
        {
            get
            {
                int count = Native.Check(Native.pulsar_pattern_warning_count(handle));
                var lines = new string[count];
                for (int i = 0; i < count; i++) lines[i] = Native.Utf8(Native.pulsar_pattern_warning(handle, i));
                return lines;
            }
        }

        /// <summary>What a device cannot do with the pattern (docs/actuators.md, "Lint"): the JSON
        /// object pulsar lint --json prints, on the device settings name (Profile or Actuator,
        /// SampleRate; null: wideband at 48 kHz).</summary>
        public string Lint(MixSettings settings = null)
        {
            using (var strings = new Native.Strings())
            {
                var options = (settings ?? new MixSettings()).ToNative(strings);
                int size = Native.Check(Native.pulsar_pattern_lint(handle, ref options, null, UIntPtr.Zero));
                var text = new byte[size + 1];
                Native.Check(Native.pulsar_pattern_lint(handle, ref options, text, (UIntPtr)text.Length));
                return Encoding.UTF8.GetString(text, 0, size);
            }
        }
        /// <summary>The pattern mixed alone (settings may be null).</summary>
        public Mix Mix(MixSettings settings = null)
        {
            return MixSettings.Make(settings, (ref Native.MixOptions o, out MixHandle h) => Native.pulsar_mix_from_pattern(handle, ref o, out h));
        }
        public void Dispose() { handle.Dispose(); }
    }

    /// <summary>A .pulsar preset bundle (a ZIP file or an unpacked folder).</summary>
    public sealed class Bundle : IDisposable
    {
        readonly BundleHandle handle;
        Bundle(BundleHandle handle) { this.handle = handle; }
        public static Bundle Open(string path)
        {
            BundleHandle h;
            Native.Check(Native.pulsar_bundle_open(Native.Bytes(path), out h));
            return new Bundle(h);
        }

        /// <summary>The presets' ids, in the manifest's order.</summary>
        public string[] Presets
        {
            get
            {
                int count = Native.Check(Native.pulsar_bundle_preset_count(handle));
                var ids = new string[count];
                for (int i = 0; i < count; i++) ids[i] = Native.Utf8(Native.pulsar_bundle_preset_id(handle, i));
                return ids;
            }
        }

        /// <summary>The warnings met opening the bundle, one line each.</summary>
        public string[] Warnings
        {
            get
            {
                int count = Native.Check(Native.pulsar_bundle_warning_count(handle));
                var lines = new string[count];
                for (int i = 0; i < count; i++) lines[i] = Native.Utf8(Native.pulsar_bundle_warning(handle, i));
                return lines;
            }
        }

        /// <summary>A preset with its audio (decoded now, in full).</summary>
        public Mix Mix(string preset, MixSettings settings = null)
        {
            byte[] id = Native.Bytes(preset);
            return MixSettings.Make(settings, (ref Native.MixOptions o, out MixHandle h) => Native.pulsar_mix_from_preset(handle, id, ref o, out h));
        }
        public void Dispose() { handle.Dispose(); }
    }

    /// <summary>What a device would receive, rendered from any frame.</summary>
    public sealed class Mix : IDisposable
    {
        internal readonly MixHandle Handle;
        internal Mix(MixHandle handle) { Handle = handle; }

        /// <summary>Any input as pulsar render INPUT reads it: a bundle (preset, or its only one;
        /// null for the only one), a pattern file, or an audio file (which settings.Derive gives
        /// haptics); defaults as the command's.</summary>
        public static Mix Open(string path, string preset = null, MixSettings settings = null)
        {
            byte[] p = Native.Bytes(path), id = preset == null ? null : Native.Bytes(preset);
            return MixSettings.Make(settings, (ref Native.MixOptions o, out MixHandle h) => Native.pulsar_mix_open(p, id, ref o, out h));
        }

        /// <summary>The warnings met making the mix (Open), one line each.</summary>
        public string[] Warnings
        {
            get
            {
                int count = Native.Check(Native.pulsar_mix_warning_count(Handle));
                var lines = new string[count];
                for (int i = 0; i < count; i++) lines[i] = Native.Utf8(Native.pulsar_mix_warning(Handle, i));
                return lines;
            }
        }
        /// <summary>Frames of the whole mix; -1 for an endless loop.</summary>
        public long Frames { get { return Native.pulsar_mix_frames(Handle); } }
        public int Channels { get { return Native.Check(Native.pulsar_mix_channels(Handle)); } }
        public int SampleRate { get { return Native.Check(Native.pulsar_mix_sample_rate(Handle)); } }

        /// <summary>Renders `frames` frames from `fromFrame`, interleaved, into `buffer` (at least
        /// frames × Channels long, at most 2^31 - 1 samples); the library writes into the array itself.</summary>
        public void Render(long fromFrame, float[] buffer, long frames)
        {
            Native.Holds(buffer, "the buffer", frames, Channels);
            Native.Check(Native.pulsar_mix_render(Handle, fromFrame, buffer, frames));
        }

        /// <summary>The whole mix as a 32-bit float WAV (Ogg Vorbis for a name ending in .ogg).</summary>
        public void WriteWav(string path) { Native.Check(Native.pulsar_mix_write_wav(Handle, Native.Bytes(path))); }
        public void Dispose() { Handle.Dispose(); }
    }

    /// <summary>Touch from a game's own sound as it comes (docs/derive.md).</summary>
    public sealed class Follower : IDisposable
    {
        readonly FollowerHandle handle;
        /// <summary>`method` "envelope" (default) or "android"; 0 / null keep the defaults.</summary>
        public Follower(int sampleRate = 0, string method = null, string profile = null)
        {
            using (var strings = new Native.Strings())
            {
                var o = new Native.FollowerOptions();
                o.size = (UIntPtr)Marshal.SizeOf(typeof(Native.FollowerOptions));
                o.sample_rate = sampleRate; o.method = strings.Add(method); o.profile = strings.Add(profile);
                Native.Check(Native.pulsar_follower_create(ref o, out handle));
            }
        }

        /// <summary>`frames` frames of `channels` interleaved samples (input) to `frames` mono haptic samples.</summary>
        public void Process(float[] input, int channels, long frames, float[] haptics)
        {
            Native.Holds(input, "input", frames, channels);
            Native.Holds(haptics, "haptics", frames, 1);
            Native.Check(Native.pulsar_follower_process(handle, input, channels, frames, haptics));
        }
        public long Onsets { get { return Native.pulsar_follower_onsets(handle); } }
        public void Dispose() { handle.Dispose(); }
    }

    /// <summary>Where and how an engine plays: 0 / null keep the library's defaults.</summary>
    public sealed class EngineSettings
    {
        public string Device = "auto";  // "auto", "pw:", "pw:NODE", "dualsense", an ALSA name, "sim[:...]"
        public string Layout;
        public int SampleRate, PeriodFrames, BufferFrames, VoiceLimit;
        public string HapticDevice, HapticLayout;
        public double LatencyMs, HapticLatencyMs;
        public string LogPath;          // the event log, for `pulsar render --replay`
    }

    /// <summary>Voices on a device, with a real-time thread.</summary>
    public sealed class Engine : IDisposable
    {
        readonly EngineHandle handle;
        readonly List<Voice> voices = new List<Voice>();
        internal readonly List<GCHandle> Pinned = new List<GCHandle>();  // callbacks' contexts, kept while the engine lives
        public Engine(EngineSettings settings = null)
        {
            settings = settings ?? new EngineSettings();
            using (var strings = new Native.Strings())
            {
                var o = new Native.EngineOptions();
                o.size = (UIntPtr)Marshal.SizeOf(typeof(Native.EngineOptions));
                o.device = strings.Add(settings.Device); o.layout = strings.Add(settings.Layout);
                o.sample_rate = settings.SampleRate; o.period_frames = settings.PeriodFrames;
                o.buffer_frames = settings.BufferFrames; o.voice_limit = settings.VoiceLimit;
                o.haptic_device = strings.Add(settings.HapticDevice); o.haptic_layout = strings.Add(settings.HapticLayout);
                o.latency_ms = settings.LatencyMs; o.haptic_latency_ms = settings.HapticLatencyMs;
                o.log_path = strings.Add(settings.LogPath);
                Native.Check(Native.pulsar_engine_create(ref o, out handle));
            }
        }

        /// <summary>A new voice playing `mix`, stopped until played.</summary>
        public Voice Voice(Mix mix, int priority = 0, bool realtime = false)
        {
            VoiceHandle h;
            Native.Check(Native.pulsar_engine_voice(handle, mix.Handle, priority, realtime ? 1 : 0, out h));
            var voice = new Voice(h, this, mix);
            voices.Add(voice);
            return voice;
        }

        /// <summary>Takes in the device clock and the voices' states; runs completion callbacks here.</summary>
        public void Poll() { Native.Check(Native.pulsar_engine_poll(handle)); }
        /// <summary>The engine's clock (CLOCK_MONOTONIC), seconds.</summary>
        public double Time { get { return Native.pulsar_engine_time(handle); } }
        public bool IsIdle { get { return Native.Check(Native.pulsar_engine_is_idle(handle)) == 1; } }
        /// <summary>Ramps every voice's haptic gain to <paramref name="value"/> (0...4) over <paramref name="seconds"/> (0: at once, a 4 ms ramp).</summary>
        public void SetMasterGain(double value, double seconds = 0) { Native.Check(Native.pulsar_engine_set_master_gain(handle, value, seconds)); }
        /// <summary>Stops and joins the real-time thread; writes the log and a simulated recording.</summary>
        public void Stop() { Native.Check(Native.pulsar_engine_stop(handle)); }

        public void Dispose()
        {
            if (handle.IsClosed) return;
            Native.pulsar_engine_stop(handle);
            foreach (var v in voices) v.Dispose();
            handle.Dispose();
            foreach (var g in Pinned) g.Free();
            Pinned.Clear();
        }
    }

    /// <summary>A voice of an engine: transport, live parameters, its clock.</summary>
    public sealed class Voice : IDisposable
    {
        readonly VoiceHandle handle;
        readonly Engine engine;
        readonly Mix mix;  // the voice plays it: kept alive with the voice
        Action<bool> completion;
        static readonly Native.Completion Dispatch = OnCompletion;  // one static delegate, never collected
        internal Voice(VoiceHandle handle, Engine engine, Mix mix) { this.handle = handle; this.engine = engine; this.mix = mix; }

        /// <summary>The mix the voice plays.</summary>
        public Mix Mix { get { return mix; } }

        public void Play(double fromMs = 0) { Native.Check(Native.pulsar_voice_play(handle, fromMs)); }
        public void PlayAt(double engineTime) { Native.Check(Native.pulsar_voice_play_at(handle, engineTime)); }
        public void Pause() { Native.Check(Native.pulsar_voice_pause(handle)); }
        public void Resume() { Native.Check(Native.pulsar_voice_resume(handle)); }
        public void Stop() { Native.Check(Native.pulsar_voice_stop(handle)); }
        public void Seek(double toMs) { Native.Check(Native.pulsar_voice_seek(handle, toMs)); }
        /// <summary>Most points of one curve: the engine's limit (PULSAR_MAX_CURVE_POINTS).</summary>
        public const int MaxCurvePoints = 1024;

        /// <summary>Multiplies the voice's haptics (0...4), ramped per sample over <paramref name="seconds"/>;
        /// 0 is "at once", a 4 ms ramp, never a step (as the script's <c>over 0</c>). Changes sent together
        /// all take effect, in the order sent: one that lands at the frame of the one before, or during that
        /// one's 4 ms at once, starts where it ends.</summary>
        public void SetIntensity(double value, double seconds = 0) { Native.Check(Native.pulsar_voice_set_intensity(handle, value, seconds)); }
        /// <summary>Moves the voice's frequency (-1...1), ramped over <paramref name="seconds"/> (0: at once, a 4 ms ramp).</summary>
        public void SetSharpness(double value, double seconds = 0) { Native.Check(Native.pulsar_voice_set_sharpness(handle, value, seconds)); }

        /// <summary>Points at strictly rising engine times (1 to <see cref="MaxCurvePoints"/>, 1024), each value
        /// reached at its time.</summary>
        public void SetIntensityCurve(double[] times, double[] values)
        {
            if (times == null || values == null || times.Length != values.Length)
                throw new PulsarArgumentException(-1, "pulsar: a curve needs as many times as values");
            if (times.Length > MaxCurvePoints)
                throw Native.Refuse("pulsar: a curve of " + times.Length + " points: the engine takes at most " + MaxCurvePoints + " points");
            Native.Check(Native.pulsar_voice_set_intensity_curve(handle, times, values, times.Length));
        }

        public void SetContentTime(double ms) { Native.Check(Native.pulsar_voice_set_content_time(handle, ms)); }
        /// <summary>The content time heard now, ms (NaN before the device's first position reading).</summary>
        public double ContentMs { get { return Native.pulsar_voice_content_ms(handle); } }
        public double AnimationFrame { get { return Native.pulsar_voice_animation_frame(handle); } }
        public bool HasEnded { get { return Native.Check(Native.pulsar_voice_has_ended(handle)) == 1; } }

        /// <summary>`action(finished)` runs inside Engine.Poll when the playback ends: true when it
        /// played out, false when stopped or stolen. It stays registered after Dispose.</summary>
        public void OnCompletion(Action<bool> action)
        {
            completion = action;
            GCHandle context = GCHandle.Alloc(this);
            engine.Pinned.Add(context);
            Native.Check(Native.pulsar_voice_on_completion(handle, Dispatch, GCHandle.ToIntPtr(context)));
        }

        [MonoPInvokeCallback(typeof(Native.Completion))]
        static void OnCompletion(IntPtr voice, int finished, IntPtr context)
        {
            var self = GCHandle.FromIntPtr(context).Target as Voice;
            if (self != null && self.completion != null) self.completion(finished != 0);
        }

        /// <summary>Ends the handle; the voice plays on until it ends, and its callback still runs.</summary>
        public void Dispose() { handle.Dispose(); }
    }
}
