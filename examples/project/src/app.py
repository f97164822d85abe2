"""A tiny inventory service: the code the example hooks watch over."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int
    unit_price: float

    def total(self) -> float:
        return self.quantity * self.unit_price


def inventory_value(items: list[Item]) -> float:
    # TODO: support currencies other than EUR
    return round(sum(item.total() for item in items), 2)


if __name__ == "__main__":
    stock = [Item("bolt", 120, 0.05), Item("nut", 300, 0.02)]
    print(f"inventory value: {inventory_value(stock):.2f} EUR")
