"""Seed the arena shop from a JSON payload. Runs inside the shop's venv, after migrate.

Usage: python seed_shop.py PAYLOAD.json
Orders go through Oscar's own OrderCreator (so totals, lines and stock allocations are
what the shop itself computes); dates are pinned afterwards with ``update``.
"""

import io
import json
import sys
from datetime import datetime
from decimal import Decimal

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sites.models import Site  # noqa: E402
from django.core.files.base import ContentFile  # noqa: E402
from django.db import transaction  # noqa: E402
from oscar.apps.catalogue.categories import create_from_breadcrumbs  # noqa: E402
from oscar.core.loading import get_class, get_model  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

Product = get_model("catalogue", "Product")
ProductClass = get_model("catalogue", "ProductClass")
ProductCategory = get_model("catalogue", "ProductCategory")
ProductImage = get_model("catalogue", "ProductImage")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")
Country = get_model("address", "Country")
UserAddress = get_model("address", "UserAddress")
ShippingAddress = get_model("order", "ShippingAddress")
Order = get_model("order", "Order")
Line = get_model("order", "Line")
Basket = get_model("basket", "Basket")
ProductReview = get_model("reviews", "ProductReview")
Selector = get_class("partner.strategy", "Selector")
OrderCreator = get_class("order.utils", "OrderCreator")
OrderTotalCalculator = get_class("checkout.calculators", "OrderTotalCalculator")
Free = get_class("shipping.methods", "Free")

SWATCHES = {"Black": "#2b2b2b", "Navy": "#1f2f55", "Slate Grey": "#6b7682", "Grey": "#8a8f96",
            "Forest Green": "#2f5d3a", "Burgundy": "#6d1f2e", "Sand": "#d8c7a3",
            "Sky Blue": "#8ec5e8", "White": "#f2f2f2", "Oatmeal": "#d9cdb8",
            "Charcoal": "#3c3f44", "Moss": "#6f7b3c", "Rust": "#a24e2a", "Cream": "#efe6d2",
            "Matte Black": "#222222", "Brushed Steel": "#b8bcc0", "Stone": "#c9c2b6",
            "Sage": "#a3b49a", "Dusty Pink": "#d8a7a7", "Midnight Blue": "#1b2541",
            "Rose": "#e0a3ae", "Blue": "#3465a4", "Olive": "#6b6b2f", "Terracotta": "#c0623b"}
FAMILY_TONES = ("#7a9e9f", "#b1845c", "#5c7aa3", "#9b6b9e", "#6e9b63", "#c2a14b")


def when(text):
    return datetime.fromisoformat(text)


def picture(title, noun, color):
    """A plain product photo stand-in: the item's color, its kind and its name."""
    img = Image.new("RGB", (480, 480), color)
    draw = ImageDraw.Draw(img)
    light = sum(int(color[i:i + 2], 16) for i in (1, 3, 5)) > 420
    ink = "#222222" if light else "#f5f5f5"
    try:
        big = ImageFont.truetype("DejaVuSans-Bold.ttf", 34)
        small = ImageFont.truetype("DejaVuSans.ttf", 20)
    except OSError:
        big = small = ImageFont.load_default()
    draw.rounded_rectangle((60, 110, 420, 330), radius=28, outline=ink, width=4)
    draw.text((240, 200), noun, fill=ink, font=big, anchor="mm")
    draw.text((240, 260), title[:38], fill=ink, font=small, anchor="mm")
    out = io.BytesIO()
    img.save(out, "JPEG", quality=80)
    return out.getvalue()


def address_fields(person, country):
    return {"first_name": person["first"], "last_name": person["last"],
            "line1": person["street"], "line4": person["city"], "state": person["region"],
            "postcode": person["postcode"], "country": country}


def seed_people(data):
    users = {}
    for i, person in enumerate(data["staff"] + data["customers"]):
        staff = i < len(data["staff"])
        user = User(username=person["username"], email=person["email"],
                    first_name=person["first"], last_name=person["last"],
                    is_staff=staff, is_superuser=(i == 0))
        user.set_password(person["password"])
        user.save()
        User.objects.filter(pk=user.pk).update(date_joined=when(person["joined"]))
        users[person["email"]] = user
    return users


def seed_catalogue(data):
    partner = Partner.objects.create(name="OneStop Warehouse")
    classes, categories, products = {}, {}, {}
    for item in data["products"]:
        noun = item["noun"]
        if noun not in classes:
            classes[noun] = ProductClass.objects.create(name=noun, requires_shipping=True,
                                                        track_stock=True)
        if item["category"] not in categories:
            categories[item["category"]] = create_from_breadcrumbs(item["category"])
        product = Product.objects.create(title=item["title"], upc=item["upc"],
                                         description=item["description"],
                                         product_class=classes[noun], is_public=True)
        ProductCategory.objects.create(product=product, category=categories[item["category"]])
        StockRecord.objects.create(product=product, partner=partner,
                                   partner_sku=f"OS-{item['id']:05d}",
                                   price_currency="USD", price=Decimal(item["price"]),
                                   num_in_stock=item["stock"])
        color = SWATCHES.get(item["color"] or "", FAMILY_TONES[item["family"] % 6])
        image = ProductImage(product=product, display_order=0, caption=item["title"])
        image.original.save(f"product-{item['id']}.jpg",
                            ContentFile(picture(item["title"], noun, color)), save=False)
        image.save()
        products[item["id"]] = product
    return products


def seed_orders(data, users, products, country):
    strategy = Selector().strategy()
    allocated = {}
    for order_data in data["orders"]:
        user = users[order_data["customer"]]
        basket = Basket.objects.create(owner=user)
        basket.strategy = strategy
        for pid, qty in order_data["lines"]:
            basket.add_product(products[pid], qty)
        shipping = ShippingAddress.objects.create(
            **address_fields(data["people"][order_data["customer"]], country))
        method = Free()
        charge = method.calculate(basket)
        total = OrderTotalCalculator().calculate(basket, charge)
        order = OrderCreator().place_order(
            basket=basket, total=total, shipping_method=method, shipping_charge=charge,
            user=user, shipping_address=shipping, order_number=order_data["number"],
            status=order_data["status"])
        basket.set_as_submitted()
        placed = when(order_data["placed"])
        Order.objects.filter(pk=order.pk).update(date_placed=placed)
        Line.objects.filter(order=order).update(status=order_data["status"])
        Basket.objects.filter(pk=basket.pk).update(date_created=placed, date_submitted=placed)
        if order_data["status"] in ("Pending", "Processing"):
            for pid, qty in order_data["lines"]:
                allocated[pid] = allocated.get(pid, 0) + qty
    # Stock as the catalogue says, plus what open orders still hold.
    for pid, product in products.items():
        StockRecord.objects.filter(product=product).update(
            num_allocated=allocated.get(pid, 0),
            num_in_stock=data["stock"][str(pid)] + allocated.get(pid, 0))


def seed_reviews(data, users, products):
    for item in data["reviews"]:
        review = ProductReview.objects.create(
            product=products[item["product"]], user=users[item["customer"]],
            score=item["score"], title=item["title"], body=item["body"],
            status=ProductReview.APPROVED)
        ProductReview.objects.filter(pk=review.pk).update(date_created=when(item["created"]))
    for product in products.values():
        product.update_rating()


def pin_dates(data):
    opened = when(data["opened"])
    for model in (Product, StockRecord, ProductImage, UserAddress):
        fields = {f.name: opened for f in model._meta.fields
                  if f.name in ("date_created", "date_updated")}
        if fields:
            model.objects.update(**fields)


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        data = json.load(fh)
    Site.objects.filter(pk=1).update(domain="127.0.0.1", name="OneStop Market")
    country = Country.objects.create(iso_3166_1_a2="US", iso_3166_1_a3="USA",
                                     iso_3166_1_numeric="840", printable_name="United States",
                                     name="United States of America", is_shipping_country=True)
    with transaction.atomic():
        users = seed_people(data)
        for person in data["customers"]:
            UserAddress.objects.create(user=users[person["email"]], is_default_for_shipping=True,
                                       **address_fields(person, country))
        products = seed_catalogue(data)
        seed_orders(data, users, products, country)
        seed_reviews(data, users, products)
        pin_dates(data)


if __name__ == "__main__":
    main()
