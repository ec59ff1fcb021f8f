/// A module that does something when the person enters it (`use tyt`, or the start of its
/// standalone program), e.g. opening a questionnaire whose reminder is due.
public protocol ModuleEntering: UNITIModule {
    func didEnter(_ context: ModuleContext) throws
}
