public enum CodecsPlaceholder {}
