public enum TypesettingPlaceholder {}
