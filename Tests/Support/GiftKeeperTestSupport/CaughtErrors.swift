/// The error of type `E` that `body` throws; nil when it throws none, or one of another type.
public func caught<E: Error, T>(_: E.Type, _ body: () throws -> T) -> E? {
    do {
        _ = try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        return nil
    }
}
