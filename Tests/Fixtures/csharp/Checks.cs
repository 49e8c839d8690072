// Checks of bindings/csharp/Pulsar.cs that the game example does not make: each bad call throws
// the exception of its result code with libpulsar's message, a disposed object refuses use, and a
// render writes the samples `pulsar render` writes (raw float32 to argv[1], compared by the test).
//
//   mono checks.exe OUT.f32 PATTERN
using System;
using System.IO;
using Pulsar;

static class Checks
{
    static int failures;

    static void Expect<T>(string what, Action call, int code) where T : PulsarException
    {
        try { call(); Console.WriteLine("FAIL " + what + ": no exception"); failures++; }
        catch (T e)
        {
            bool ok = e.Code == code && !string.IsNullOrEmpty(e.Message);
            Console.WriteLine((ok ? "ok " : "FAIL ") + what + ": " + e.Message);
            if (!ok) failures++;
        }
        catch (Exception e) { Console.WriteLine("FAIL " + what + ": " + e.GetType().Name + " " + e.Message); failures++; }
    }

    static int Main(string[] args)
    {
        Expect<PulsarNotFoundException>("a missing file", () => Pattern.Open("/nonexistent/x.json"), -2);
        Expect<PulsarDataException>("a broken pattern", () => Pattern.FromText("{ not json"), -3);
        using (var pattern = Pattern.Open(args[1]))
        {
            Expect<PulsarArgumentException>("a rate out of range", () => pattern.Mix(new MixSettings { SampleRate = 1000 }), -1);
            using (var mix = pattern.Mix())
            {
                Expect<PulsarArgumentException>("a buffer too small", () => mix.Render(0, new float[10], 100), -1);
                var samples = new float[mix.Frames * mix.Channels];
                mix.Render(0, samples, mix.Frames);
                var bytes = new byte[samples.Length * 4];
                Buffer.BlockCopy(samples, 0, bytes, 0, bytes.Length);
                File.WriteAllBytes(args[0], bytes);
                Console.WriteLine("rendered " + mix.Frames + " frames x " + mix.Channels + " at " + mix.SampleRate + " Hz");
            }
            using (var engine = new Engine(new EngineSettings { Device = "sim" }))
            {
                var voice = engine.Voice(pattern.Mix());
                engine.Stop();
                Expect<PulsarStateException>("a voice of a stopped engine", () => voice.Play(), -7);
            }
        }
        var closed = Pattern.FromText("{\"discretePattern\":[{\"time\":0,\"amplitude\":1,\"frequency\":0.5}]}");
        closed.Dispose();
        try { closed.Mix(); Console.WriteLine("FAIL a disposed pattern: no exception"); failures++; }
        catch (ObjectDisposedException) { Console.WriteLine("ok a disposed pattern: ObjectDisposedException"); }
        Console.WriteLine(failures == 0 ? "all checks passed" : failures + " checks failed");
        return failures == 0 ? 0 : 1;
    }
}
