/// Audio files: Ogg Opus (on libogg) and WAV readers and writers. No sockets, no clocks. The relay does
/// not use them: `pttd` does not link libogg.
public enum AudioFiles {}
