/// A module with reminders: its rules and how to tell answered periods (see ``ReminderSource``).
/// The core plans and delivers them; the module keeps the rules in its own settings
/// (``ReminderRuleStore``). Asked whenever reminders are planned, so it should be quick.
public protocol ReminderProviding: UNITIModule {
    func reminderSource(_ context: ModuleContext) throws -> ReminderSource
}

/// A module whose reminder rules name tones of its own (the `tone` of a ``ReminderRule``): the
/// sound of one, or nil to let the terminal bell ring. Asked when a reminder falls due.
public protocol ReminderToneProviding: UNITIModule {
    func reminderTone(named name: String) -> ReminderTone?
}
