// Game.cs — examples/c/game.c in C#: an engine on a device, a long rumble voice with a live
// intensity curve, short effects overlapping it, and the voice's clock read at 60 Hz for three
// seconds. Built with the binding alone, for mono, .NET or Unity:
//
//   mcs -out:game.exe bindings/csharp/Pulsar.cs examples/csharp/Game.cs
//   mono game.exe [--device NAME] [--log FILE]         (default auto)
//
// --log writes the engine's event log: `pulsar render --replay FILE -o OUT.wav` rebuilds what the
// device played, the same samples as a simulated device's recording (--device sim:record=X.wav).
using System;
using System.Globalization;
using System.Threading;
using Pulsar;

static class Game
{
    const string Rumble = "{\"continuousPattern\":{\"amplitude\":[{\"time\":0,\"value\":0.4},{\"time\":3000,\"value\":0.4}],"
        + "\"frequency\":[{\"time\":0,\"value\":0.2},{\"time\":3000,\"value\":0.2}]}}";
    const string Hit = "{\"discretePattern\":[{\"time\":0,\"amplitude\":1.0,\"frequency\":0.8},{\"time\":60,\"amplitude\":0.6,\"frequency\":0.5}]}";

    static int Main(string[] args)
    {
        var settings = new EngineSettings();
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            if (args[i] == "--device") settings.Device = args[i + 1];
            else if (args[i] == "--log") settings.LogPath = args[i + 1];
        }
        var text = CultureInfo.InvariantCulture;
        try
        {
            using (var rumblePattern = Pattern.FromText(Rumble))
            using (var hitPattern = Pattern.FromText(Hit))
            using (var rumbleMix = rumblePattern.Mix())
            using (var hitMix = hitPattern.Mix())
            using (var engine = new Engine(settings))
            {
                var rumble = engine.Voice(rumbleMix);
                // The device clock runs from the engine's first position reading: wait for it.
                while (double.IsNaN(rumble.ContentMs))
                {
                    engine.Poll();
                    Thread.Sleep(5);
                }
                double start = engine.Time + 0.05;
                rumble.PlayAt(start);
                // The rumble swells and fades on the engine's clock: each point reached at its time.
                rumble.SetIntensityCurve(new[] { start + 0.5, start + 1.5, start + 2.5 }, new[] { 1.5, 0.3, 1.0 });
                int fired = 0;
                for (int frame = 0; frame < 3 * 60 + 30; frame++)
                {
                    double now = engine.Time - start;
                    // An effect every 600 ms, over the rumble.
                    if (fired < 4 && now >= 0.3 + 0.6 * fired)
                    {
                        int number = fired + 1;
                        var hit = engine.Voice(hitMix, priority: 1);
                        hit.OnCompletion(finished => Console.WriteLine("effect " + number + (finished ? " played out" : " was stopped")));
                        hit.Play();
                        hit.Dispose();  // the handle goes; the voice plays out and still reports
                        fired++;
                    }
                    engine.Poll();
                    if (frame % 10 == 0)
                        Console.WriteLine(string.Format(text, "t {0:0.000} s rumble {1:0.0} ms", now, rumble.ContentMs));
                    Thread.Sleep(1000 / 60);
                }
                engine.Stop();
                Console.WriteLine("done: " + fired + " effects (libpulsar " + Library.Version + ")");
            }
        }
        catch (PulsarException error)
        {
            Console.Error.WriteLine("game: " + error.Message);
            return 1;
        }
        return 0;
    }
}
