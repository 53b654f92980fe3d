/// One file served to browsers: its bytes (compiled into `pttd` from `Web/Assets/`) and its content type.
struct WebAsset: Sendable {
    let contentType: String
    let bytes: [UInt8]
}

/// The files of the browser walkie-talkie (on the web listener) and of the operator console (on the admin
/// listener), by request path. Both are plain HTML, CSS and JavaScript, with nothing fetched from elsewhere.
enum WebAssets {
    static let html = "text/html; charset=utf-8"
    static let javaScript = "text/javascript; charset=utf-8"
    static let css = "text/css; charset=utf-8"

    /// The walkie-talkie page and its scripts (ES modules, `app.js` first); the two worklets (which both import
    /// `onset-detector.js`) are loaded by the page's AudioContext.
    static let page: [String: WebAsset] = [
        "/": WebAsset(contentType: html, bytes: PackageResources.index_html),
        "/index.html": WebAsset(contentType: html, bytes: PackageResources.index_html),
        "/app.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_js),
        "/app-state.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_state_js),
        "/app-control.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_control_js),
        "/app-channels.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_channels_js),
        "/app-talk.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_talk_js),
        "/app-calls.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_calls_js),
        "/app-scan.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_scan_js),
        "/app-audio.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_audio_js),
        "/app-view.js": WebAsset(contentType: javaScript, bytes: PackageResources.app_view_js),
        "/app.css": WebAsset(contentType: css, bytes: PackageResources.app_css),
        "/capture-worklet.js": WebAsset(contentType: javaScript, bytes: PackageResources.capture_worklet_js),
        "/playback-worklet.js": WebAsset(contentType: javaScript, bytes: PackageResources.playback_worklet_js),
        "/onset-detector.js": WebAsset(contentType: javaScript, bytes: PackageResources.onset_detector_js),
    ]

    /// The operator console; it asks for the admin token and calls the admin API with it.
    static let console: [String: WebAsset] = [
        "/console": WebAsset(contentType: html, bytes: PackageResources.console_html),
        "/console/": WebAsset(contentType: html, bytes: PackageResources.console_html),
        "/console/console.js": WebAsset(contentType: javaScript, bytes: PackageResources.console_js),
        "/console/console.css": WebAsset(contentType: css, bytes: PackageResources.console_css),
    ]

    /// Headers every served file gets: no caching across upgrades of `pttd`, no framing by other sites, no
    /// content-type guessing, and scripts, styles and connections from this origin only.
    static let securityHeaders: [(String, String)] = [
        ("cache-control", "no-cache"),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        (
            "content-security-policy",
            "default-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self' blob:; frame-ancestors 'none'"
        ),
    ]
}
