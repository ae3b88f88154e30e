/// What `household device add` and `household clone` say (a member's other device, SPEC §13).
extension HouseholdWords {
    package static func deviceAdded(minutes: Int) -> String {
        "On your other device, within \(minutes) minutes: giftkeeper household clone 'ADDRESS' --journal PATH, "
            + "then your password (the address works once)."
    }

    package static func cloned(_ name: String, frames: Int, path: String) -> String {
        "This device is \(name)'s now: \(frames) frames of the household verified, into \(path). "
            + "Sign in with your password: giftkeeper --journal \(path)"
    }

    /// An address that names no household of this account, or several.
    package static let cloneNeedsHousehold =
        "The address names no household this account is a member of ('household device add' on your other device shows one)."

    /// A failed clone whose enrolled device the service could not be told to remove.
    package static let cloneMayRemainListed =
        "Nothing was kept on this device, but it may still be listed in your account on the service: "
        + "on your other device, giftkeeper household device list, then giftkeeper household device remove ID."

    /// The shell's prompt for `household device remove`'s device.
    package static let deviceLabel = "Device"
    package static let notADeviceNumber = "not a device's number ('household device list' shows them)"
}
